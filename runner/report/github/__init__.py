"""The GitHub report: check runs with annotations (checks.py, annotations.py), pull-request
deployments (deployments.py) and the sticky plan comment (comment.py), all through one
client (client.py) that retries what can be retried and never fails a deploy."""
