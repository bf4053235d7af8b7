# The GitHub Action image (action.yml runs it); the Lambda image builds on the same package.
FROM python:3.12-slim
WORKDIR /opt/deploy-runner
COPY pyproject.toml README.md ./
COPY runner ./runner
RUN pip install --no-cache-dir .
ENTRYPOINT ["deploy-runner"]
