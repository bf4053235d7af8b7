# syntax=docker/dockerfile:1
# deploy-runner's published image: `docker run`, Kubernetes Jobs, self-hosted CI. (The
# GitHub Action does not use it: action.yml runs on the runner itself.) The Python
# packages are the lock's (requirements/aws.txt: every one pinned with its hash, wheels
# only, the `aws` extra for the EKS login); the base image is pinned by its digest.
# release.yml builds it for linux/amd64 and linux/arm64 with an SBOM and provenance.
#
# The digest is python:3.12-slim's multi-platform index as found in public build files;
# it could not be pulled where this was written. Renew both together:
#   docker buildx imagetools inspect python:3.12-slim   (the "Digest:" line)
ARG PYTHON_IMAGE=python:3.12-slim@sha256:78387bc3881b8273120a12ebe6c1ab22b018ccc2c9adf565ae1ac9b536e184ea

# The Lambda function as a container image (docs/lambda.md): `docker build --target lambda`.
# AWS's Python 3.12 base image (Amazon Linux 2023 with Lambda's runtime interface client
# and emulator) by digest: its multi-platform index as found in public build files, which
# could not be pulled where this was written (no Docker engine); renew it with
#   docker buildx imagetools inspect public.ecr.aws/lambda/python:3.12   (the "Digest:" line)
# The packages are the lock's (requirements/aws.txt, hashes checked, wheels only), then
# runner and handler.py, in ${LAMBDA_TASK_ROOT} (the testbed and the demo are not in runner/).
# It is not the last stage: the default target stays the published image.
FROM public.ecr.aws/lambda/python:3.12@sha256:0628ddc11919f85f4261517d356392dbbc6b3181568d87a376ae2e814464c230 AS lambda
RUN --mount=type=bind,source=requirements/aws.txt,target=/tmp/requirements.txt \
    pip install --no-cache-dir --disable-pip-version-check --require-hashes --no-deps \
        --only-binary :all: --target "${LAMBDA_TASK_ROOT}" -r /tmp/requirements.txt
COPY runner ${LAMBDA_TASK_ROOT}/runner
RUN python -m compileall -q --invalidation-mode unchecked-hash "${LAMBDA_TASK_ROOT}"
COPY lambda/handler.py ${LAMBDA_TASK_ROOT}/
CMD ["handler.handler"]

# The project's own wheel (no dependencies: those come from the lock below). Building it
# fetches the build backend pinned in pyproject.toml's [build-system].
FROM ${PYTHON_IMAGE} AS build
WORKDIR /src
COPY pyproject.toml README.md ./
COPY runner ./runner
RUN pip wheel --no-cache-dir --disable-pip-version-check --no-deps --wheel-dir /wheels .

FROM ${PYTHON_IMAGE} AS image
ENV PYTHONUNBUFFERED=1 PIP_DISABLE_PIP_VERSION_CHECK=1
RUN --mount=type=bind,source=requirements/aws.txt,target=/tmp/requirements.txt \
    --mount=type=bind,from=build,source=/wheels,target=/wheels \
    pip install --no-cache-dir --require-hashes --no-deps --only-binary :all: \
        -r /tmp/requirements.txt \
    && pip install --no-cache-dir --no-deps /wheels/*.whl \
    && pip uninstall --yes pip \
    && useradd --system --uid 10001 --user-group --create-home --shell /usr/sbin/nologin \
        deploy-runner
USER 10001:10001
WORKDIR /home/deploy-runner
ENTRYPOINT ["deploy-runner"]
CMD ["--help"]
