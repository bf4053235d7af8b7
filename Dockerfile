# The GitHub Action's image (action.yml runs it with `action`); the Lambda builds on the
# same package. Wheels are built in a first stage; the image installs them without pip's
# cache, build tools or the sources. Versions: the base image by its full tag, every
# Python package by the pins of pyproject.toml; the `aws` extra for the EKS login. See
# docs/github.md for its size.
ARG PYTHON_IMAGE=python:3.11.14-slim-trixie

# The Lambda function as a container image (docs/lambda.md): `docker build --target lambda`.
# AWS's Python 3.12 base image (Amazon Linux 2023 with Lambda's runtime interface client
# and emulator) by digest: its multi-platform index as found in public build files, which
# could not be pulled where this was written (no Docker engine); renew it with
#   docker buildx imagetools inspect public.ecr.aws/lambda/python:3.12   (the "Digest:" line)
# The packages are the lock's (requirements/aws.txt, hashes checked, wheels only), then
# runner (without the testbed and the demo) and handler.py, in ${LAMBDA_TASK_ROOT}.
# It is not the last stage: the default target stays the published image.
FROM public.ecr.aws/lambda/python:3.12@sha256:0628ddc11919f85f4261517d356392dbbc6b3181568d87a376ae2e814464c230 AS lambda
RUN --mount=type=bind,source=requirements/aws.txt,target=/tmp/requirements.txt \
    pip install --no-cache-dir --disable-pip-version-check --require-hashes --no-deps \
        --only-binary :all: --target "${LAMBDA_TASK_ROOT}" -r /tmp/requirements.txt
COPY runner ${LAMBDA_TASK_ROOT}/runner
RUN rm -rf "${LAMBDA_TASK_ROOT}/runner/testbed" "${LAMBDA_TASK_ROOT}/runner/demo.py" \
    && python -m compileall -q --invalidation-mode unchecked-hash "${LAMBDA_TASK_ROOT}"
COPY lambda/handler.py ${LAMBDA_TASK_ROOT}/
CMD ["handler.handler"]

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
