"""Chart sources: HTTP chart repositories, OCI registries, repository state, dependency builds.

Everything here talks to a network (through `requests`, imported lazily) or to
Helm's config and cache directories; nothing on the render path of a local
chart imports this package.
"""
