# The GitHub Action's image (action.yml runs it with `action`); the Lambda builds on the
# same package. Wheels are built in a first stage; the image installs them without pip's
# cache, build tools or the sources. Versions: the base image by its full tag, every
# Python package by the pins of pyproject.toml; the `aws` extra for the EKS login. See
# docs/github.md for its size.
ARG PYTHON_IMAGE=python:3.11.14-slim-trixie

FROM ${PYTHON_IMAGE} AS wheels
WORKDIR /src
COPY pyproject.toml README.md ./
COPY runner ./runner
RUN pip wheel --no-cache-dir --disable-pip-version-check --wheel-dir /wheels '.[aws]'

FROM ${PYTHON_IMAGE}
ENV PYTHONUNBUFFERED=1 PIP_DISABLE_PIP_VERSION_CHECK=1
RUN --mount=type=bind,from=wheels,source=/wheels,target=/wheels \
    pip install --no-cache-dir --no-index --find-links=/wheels 'deploy-runner[aws]' \
    && pip uninstall --yes pip setuptools wheel \
    && useradd --system --uid 10001 --user-group --no-create-home --shell /usr/sbin/nologin \
        deploy-runner
COPY --chmod=0755 docker/entrypoint.sh /usr/local/bin/deploy-runner-action
# No USER and no WORKDIR: GitHub mounts the workspace as the working directory and starts
# the container as root; the entry point drops to the workspace's owner at once.
ENTRYPOINT ["/usr/local/bin/deploy-runner-action"]
