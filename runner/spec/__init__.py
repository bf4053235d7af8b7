"""Release specs: the file (deploy-runner.yaml, helmfile-shaped) or event payload that
says what a run deploys, validated by pydantic models and resolved into ReleaseSpecs.

Never imported by the render path (pydantic is loaded only here). The library API:
load_spec / parse_spec / spec_from_payload (runner.spec.load), the run's context
(runner.spec.context), SpecError (runner.spec.errors), json_schema.
"""
