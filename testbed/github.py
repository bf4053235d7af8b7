"""A local GitHub REST server for tests and `make demo`: it answers the operations the
report uses (testbed.octokit.OPERATIONS) and refuses what GitHub would refuse.

Every request is checked against GitHub's own OpenAPI description (path and query
parameters, the JSON body's schema, with formats) and against the limits GitHub documents
only in prose (annotation `message`/`raw_details` <= 64 KB, `title` <= 255 characters,
`start_column` only on a one-line annotation, a comment body <= 65536 characters, a
deployment status description <= 140, `per_page` <= 100, a completed check run has a
conclusion). A refused request gets GitHub's 422 `Validation Failed` and is listed in
`rejections`, so a test can assert there were none. Every request is recorded (`requests`)
with its headers and body, for assertions and for the canary-secret check.

State is kept as GitHub keeps it: check runs with their annotations appended by each
update, deployments and their statuses, issue comments, pull requests (set by the test).
Responses are GitHub's documented examples with the fields of the created object filled
in, and URLs that point back here, so an SDK following them comes back to this server.

Faults for the retry paths: `fail(operation, status, headers, body, times)` answers the
next `times` calls of an operation with that response instead. Tokens in `read_only`
get GitHub's 403 "Resource not accessible by integration" on every write, as a fork's
pull request token does.

A GitHub App (`app=(app_id, public_key_pem)`): its JWT (RS256, signed with the App's
private key, `iss` the App's id, not expired) is taken for the App's two calls, the
repository's installation and an installation token; each token minted so is then taken
for the report's calls, as GitHub takes them.
"""

from __future__ import annotations

import copy
import json
import re
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from testbed import octokit
from testbed.github_rules import request_problems

TOKEN = "ghs_deployrunnertesttoken0000000000000"


@dataclass
class Recorded:
    """One request as the server saw it, and what it answered."""

    method: str
    path: str  # without the API prefix and the query
    query: dict[str, str]
    headers: dict[str, str]
    raw: bytes
    body: Any
    operation: str | None
    status: int = 0
    rejection: str = ""  # why the server refused it ("" when it did not)


@dataclass
class _Fault:
    operation: str
    status: int
    headers: dict[str, str]
    body: dict[str, Any]
    times: int


@dataclass
class CheckRun:
    id: int
    fields: dict[str, Any]
    annotations: list[dict[str, Any]] = field(default_factory=list)
    updates: int = 0


class FakeGitHub:
    """The server: `with FakeGitHub() as github:`, then GITHUB_API_URL=github.url."""

    def __init__(self, *, repository: str = "Codertocat/Hello-World", prefix: str = "",
                 token: str = TOKEN, read_only: tuple[str, ...] = (),
                 app: tuple[str, str] | None = None) -> None:
        self.repository = repository
        self.app = app  # (app id, public key PEM)
        self.installation_id = 4242
        self.minted: list[str] = []  # installation tokens, in order
        self.prefix = prefix.rstrip("/")  # "/api/v3" as on GitHub Enterprise Server
        self.tokens = {token, *read_only}
        self.read_only = set(read_only)
        self.requests: list[Recorded] = []
        self.check_runs: dict[int, CheckRun] = {}
        self.deployments: dict[int, dict[str, Any]] = {}
        self.deployment_statuses: dict[int, list[dict[str, Any]]] = {}
        self.comments: dict[int, dict[str, Any]] = {}
        self.pulls: dict[int, dict[str, Any]] = {}
        self.permissions: dict[str, str] = {}  # login -> admin | write | read (else none)
        self.teams: dict[str, set[str]] = {}  # "org/team-slug" -> its members' logins
        self.issues: dict[int, dict[str, Any]] = {}  # number -> title, body, state, labels
        self._faults: list[_Fault] = []
        self._ids = iter(range(1001, 10**9))
        self._lock = threading.Lock()
        self._ops = octokit.operations()
        self._routes = [(_path_pattern(op["path"]), op["method"], op_id)
                        for op_id, op in self._ops.items()]
        self._server: ThreadingHTTPServer | None = None

    # -- life -----------------------------------------------------------------------
    def __enter__(self) -> FakeGitHub:
        handler = type("Handler", (_Handler,), {"github": self})
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True).start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    @property
    def url(self) -> str:
        assert self._server is not None, "the server is not running"
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}{self.prefix}"

    # -- what tests set and read -------------------------------------------------------
    def fail(self, operation: str, status: int, *, headers: dict[str, str] | None = None,
             body: dict[str, Any] | None = None, times: int = 1) -> None:
        with self._lock:
            self._faults.append(_Fault(operation, status, headers or {},
                                       body or {"message": "Server Error"}, times))

    def add_pull(self, number: int, *, state: str = "open", head_sha: str = "a" * 40,
                 merged: bool = False, updated_at: str = "2026-01-01T00:00:00Z") -> None:
        self.pulls[number] = {"number": number, "state": state, "merged": merged,
                              "head_sha": head_sha, "updated_at": updated_at}

    def requested_action(self, check_run_id: int, identifier: str, sender: str
                         ) -> dict[str, Any]:
        """The `check_run` event GitHub sends when `sender` clicks the button `identifier`
        of a check run: GitHub's webhook example with this server's check run in it."""
        payload = octokit.event_payload("check_run", "requested_action")
        run = self._check_run_view(self.check_runs[check_run_id])
        payload["check_run"].update({key: run[key] for key in (
            "id", "name", "head_sha", "external_id", "status", "conclusion", "html_url",
            "details_url", "started_at", "completed_at", "url")})
        payload["requested_action"] = {"identifier": identifier}
        payload["sender"]["login"] = sender
        owner, name = self.repository.split("/")
        payload["repository"].update(full_name=self.repository, name=name)
        payload["repository"]["owner"]["login"] = owner
        return payload

    def issues_labelled(self, label: str) -> list[dict[str, Any]]:
        return [i for i in self.issues.values() if label in i["labels"]]

    @property
    def rejections(self) -> list[Recorded]:
        return [r for r in self.requests if r.rejection]

    def calls(self, operation: str) -> list[Recorded]:
        return [r for r in self.requests if r.operation == operation and not r.rejection]

    def runs_named(self, name: str) -> list[CheckRun]:
        return [run for run in self.check_runs.values() if run.fields["name"] == name]

    def everything_sent(self) -> Iterator[str]:
        """Each request's text (path, query, headers but Authorization, body)."""
        for r in self.requests:
            headers = {k: v for k, v in r.headers.items() if k.lower() != "authorization"}
            yield f"{r.method} {r.path} {r.query} {headers}\n{r.raw.decode(errors='replace')}"

    # -- handling -------------------------------------------------------------------
    def handle(self, method: str, target: str, headers: dict[str, str], raw: bytes
               ) -> tuple[int, dict[str, str], Any]:
        parts = urlsplit(target)
        path = parts.path
        if self.prefix and path.startswith(self.prefix):
            path = path[len(self.prefix):]
        query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
        record = Recorded(method, path, query, headers, raw, None, None)
        with self._lock:
            self.requests.append(record)
            status, extra, body = self._answer(record)
            record.status = status
            if status == 422:
                record.rejection = body["errors"][0] if body.get("errors") else body["message"]
        return status, {**_rate_headers(), **extra}, body

    def _answer(self, r: Recorded) -> tuple[int, dict[str, str], Any]:
        route = self._route(r.method, r.path)
        if route is None:
            return 404, {}, {"message": "Not Found"}
        r.operation, params = route
        if r.operation.startswith("apps/"):
            return self._app_call(r, params)
        token = _token(r.headers)
        if token not in self.tokens:
            return 401, {}, {"message": "Bad credentials"}
        problems = self._problems(r, params)
        if problems:
            return 422, {}, {"message": "Validation Failed", "errors": problems}
        for fault in self._faults:
            if fault.operation == r.operation and fault.times > 0:
                fault.times -= 1
                return fault.status, fault.headers, fault.body
        if r.method != "GET" and token in self.read_only:
            return 403, {}, {"message": "Resource not accessible by integration"}
        if "owner" in params and f"{params['owner']}/{params['repo']}" != self.repository:
            return 404, {}, {"message": "Not Found"}
        status = self._ops[r.operation]["status"]
        answer = getattr(self, "_op_" + re.sub(r"[/-]", "_", r.operation))(params, r)
        if isinstance(answer, tuple):
            return answer
        return status, {}, answer

    def _app_call(self, r: Recorded, params: dict[str, str]) -> tuple[int, dict[str, str], Any]:
        """An App's own call: its JWT checked, then the installation or a new token."""
        import jwt

        if self.app is None:
            return 401, {}, {"message": "A JSON web token could not be decoded"}
        app_id, public_key = self.app
        try:
            claims = jwt.decode(_token(r.headers), public_key, algorithms=["RS256"],
                                options={"require": ["exp", "iat", "iss"]})
        except jwt.PyJWTError:
            return 401, {}, {"message": "A JSON web token could not be decoded"}
        if str(claims["iss"]) != app_id:
            return 401, {}, {"message": "Integration not found"}
        problems = self._problems(r, params)
        if problems:
            return 422, {}, {"message": "Validation Failed", "errors": problems}
        view = self._example(r.operation)
        if r.operation == "apps/get-repo-installation":
            if f"{params['owner']}/{params['repo']}" != self.repository:
                return 404, {}, {"message": "Not Found"}
            view.update(id=self.installation_id, app_id=int(app_id))
            return 200, {}, view
        if int(params["installation_id"]) != self.installation_id:
            return 404, {}, {"message": "Not Found"}
        token = f"ghs_{next(self._ids):036d}"
        self.tokens.add(token)
        self.minted.append(token)
        expires = datetime.fromtimestamp(time.time() + 3600, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        view.update(token=token, expires_at=expires)
        return 201, {}, view

    def _route(self, method: str, path: str) -> tuple[str, dict[str, str]] | None:
        for pattern, op_method, op_id in self._routes:
            match = pattern.fullmatch(path)
            if match and op_method == method:
                return op_id, match.groupdict()
        return None

    def _problems(self, r: Recorded, params: dict[str, str]) -> list[str]:
        assert r.operation is not None
        try:
            r.body = json.loads(r.raw) if r.raw else None
        except ValueError:
            return ["Problems parsing JSON"]
        return request_problems(self._ops[r.operation], r.operation, params, r.query, r.body)

    # -- operations ---------------------------------------------------------------------
    def _base(self) -> str:
        return f"{self.url}/repos/{self.repository}"

    def _example(self, operation: str) -> dict[str, Any]:
        example = self._ops[operation]["example"]
        view = copy.deepcopy(example[0] if isinstance(example, list) else example)
        # Two of GitHub's examples break their own schema (23.0.2): mend them, so
        # that every answer here validates against the documented response.
        if operation == "pulls/get":
            view["requested_teams"] = []
        if operation == "repos/get":
            view.update(language=None)
            view.pop("source", None)
            view.pop("parent", None)
        return view

    def _op_checks_create(self, params: dict[str, str], r: Recorded) -> dict[str, Any]:
        run = CheckRun(next(self._ids), {"status": "queued", "conclusion": None, "output": {}})
        self.check_runs[run.id] = run
        self._apply_check_update(run, r.body)
        return self._check_run_view(run)

    def _op_checks_update(self, params: dict[str, str], r: Recorded) -> Any:
        run = self.check_runs.get(int(params["check_run_id"]))
        if run is None:
            return 404, {}, {"message": "Not Found"}
        run.updates += 1
        self._apply_check_update(run, r.body or {})
        return self._check_run_view(run)

    def _op_checks_get(self, params: dict[str, str], r: Recorded) -> Any:
        run = self.check_runs.get(int(params["check_run_id"]))
        return (404, {}, {"message": "Not Found"}) if run is None else self._check_run_view(run)

    def _op_checks_list_annotations(self, params: dict[str, str], r: Recorded) -> Any:
        run = self.check_runs.get(int(params["check_run_id"]))
        if run is None:
            return 404, {}, {"message": "Not Found"}
        items = [{**a, "blob_href": f"{self.url}/blob", "start_column": a.get("start_column"),
                  "end_column": a.get("end_column"), "title": a.get("title"),
                  "raw_details": a.get("raw_details")} for a in run.annotations]
        return self._page(items, r)

    def _apply_check_update(self, run: CheckRun, body: dict[str, Any]) -> None:
        output = body.get("output")
        for key, value in body.items():
            if key != "output":
                run.fields[key] = value
        if "conclusion" in body:
            run.fields["status"] = "completed"
        if output is not None:
            run.annotations += output.get("annotations", [])
            run.fields["output"] = {k: v for k, v in output.items() if k != "annotations"}

    def _check_run_view(self, run: CheckRun) -> dict[str, Any]:
        view = self._example("checks/create")
        fields = dict(run.fields)
        output = fields.pop("output", {})
        view.update(fields)
        view.update(
            id=run.id, url=f"{self._base()}/check-runs/{run.id}",
            html_url=f"https://github.com/{self.repository}/runs/{run.id}",
            output={"title": output.get("title"), "summary": output.get("summary"),
                    "text": output.get("text"), "annotations_count": len(run.annotations),
                    "annotations_url": f"{self._base()}/check-runs/{run.id}/annotations"},
            pull_requests=[])
        return view

    def _op_repos_get(self, params: dict[str, str], r: Recorded) -> dict[str, Any]:
        view = self._example("repos/get")
        owner, name = self.repository.split("/")
        view.update(full_name=self.repository, name=name, url=self._base())
        view["owner"]["login"] = owner
        return view

    def _op_repos_create_deployment(self, params: dict[str, str], r: Recorded) -> dict[str, Any]:
        deployment_id = next(self._ids)
        body = r.body
        deployment = {"id": deployment_id, "ref": body["ref"], "sha": body["ref"],
                      "task": body.get("task", "deploy"),
                      "environment": body.get("environment", "production"),
                      "description": body.get("description", ""),
                      "transient_environment": body.get("transient_environment", False),
                      "production_environment": body.get("production_environment", False),
                      "payload": body.get("payload", {})}
        self.deployments[deployment_id] = deployment
        self.deployment_statuses[deployment_id] = []
        return self._deployment_view(deployment)

    def _deployment_view(self, deployment: dict[str, Any]) -> dict[str, Any]:
        view = self._example("repos/create-deployment")
        view.update(deployment)
        url = f"{self._base()}/deployments/{deployment['id']}"
        view.update(url=url, statuses_url=f"{url}/statuses", repository_url=self._base())
        return view

    def _op_repos_list_deployments(self, params: dict[str, str], r: Recorded) -> dict[str, Any]:
        chosen = [d for d in self.deployments.values()
                  if all(r.query.get(k) in (None, d[k]) for k in ("sha", "ref", "task",
                                                                 "environment"))]
        return self._page([self._deployment_view(d) for d in reversed(chosen)], r)

    def _op_repos_create_deployment_status(self, params: dict[str, str], r: Recorded) -> Any:
        deployment_id = int(params["deployment_id"])
        if deployment_id not in self.deployments:
            return 404, {}, {"message": "Not Found"}
        view = self._example("repos/create-deployment-status")
        deployment = self.deployments[deployment_id]
        view.update({"id": next(self._ids), "state": r.body["state"],
                     "environment": r.body.get("environment", deployment["environment"]),
                     "environment_url": r.body.get("environment_url", ""),
                     "log_url": r.body.get("log_url", ""),
                     "description": r.body.get("description", ""),
                     "deployment_url": f"{self._base()}/deployments/{deployment_id}",
                     "repository_url": self._base()})
        self.deployment_statuses[deployment_id].append(view)
        return view

    def _op_repos_list_deployment_statuses(self, params: dict[str, str], r: Recorded) -> Any:
        statuses = self.deployment_statuses.get(int(params["deployment_id"]))
        if statuses is None:
            return 404, {}, {"message": "Not Found"}
        return self._page(list(reversed(statuses)), r)

    def _op_issues_create_comment(self, params: dict[str, str], r: Recorded) -> Any:
        comment_id = next(self._ids)
        self.comments[comment_id] = {"id": comment_id, "issue": int(params["issue_number"]),
                                     "body": r.body["body"]}
        return self._comment_view(self.comments[comment_id])

    def _op_issues_update_comment(self, params: dict[str, str], r: Recorded) -> Any:
        comment = self.comments.get(int(params["comment_id"]))
        if comment is None:
            return 404, {}, {"message": "Not Found"}
        comment["body"] = r.body["body"]
        return self._comment_view(comment)

    def _op_issues_list_comments(self, params: dict[str, str], r: Recorded) -> Any:
        number = int(params["issue_number"])
        chosen = [c for c in self.comments.values() if c["issue"] == number]
        return self._page([self._comment_view(c) for c in chosen], r)

    def _comment_view(self, comment: dict[str, Any]) -> dict[str, Any]:
        view = self._example("issues/create-comment")
        view.update(id=comment["id"], body=comment["body"],
                    url=f"{self._base()}/issues/comments/{comment['id']}",
                    issue_url=f"{self._base()}/issues/{comment['issue']}")
        view["user"]["login"] = "github-actions[bot]"
        return view

    def _op_pulls_get(self, params: dict[str, str], r: Recorded) -> Any:
        pull = self.pulls.get(int(params["pull_number"]))
        if pull is None:
            return 404, {}, {"message": "Not Found"}
        view = self._example("pulls/get")
        view.update(number=pull["number"], state=pull["state"], merged=pull["merged"],
                    updated_at=pull["updated_at"], url=f"{self._base()}/pulls/{pull['number']}")
        view["head"]["sha"] = pull["head_sha"]
        return view

    def _op_repos_get_collaborator_permission_level(self, params: dict[str, str],
                                                    r: Recorded) -> Any:
        view = self._example("repos/get-collaborator-permission-level")
        permission = self.permissions.get(params["username"], "none")
        view.update(permission=permission, role_name=permission)
        view["user"]["login"] = params["username"]
        return view

    def _op_teams_get_membership_for_user_in_org(self, params: dict[str, str],
                                                 r: Recorded) -> Any:
        members = self.teams.get(f"{params['org']}/{params['team_slug']}", set())
        if params["username"] not in members:
            return 404, {}, {"message": "Not Found"}
        view = self._example("teams/get-membership-for-user-in-org")
        view.update(state="active", role="member")
        return view

    def _op_issues_create(self, params: dict[str, str], r: Recorded) -> Any:
        number = max(self.issues, default=0) + 1
        labels = [label if isinstance(label, str) else label["name"]
                  for label in r.body.get("labels", [])]
        self.issues[number] = {"number": number, "title": str(r.body["title"]),
                               "body": r.body.get("body") or "", "state": "open",
                               "state_reason": None, "labels": labels}
        return self._issue_view(self.issues[number])

    def _op_issues_update(self, params: dict[str, str], r: Recorded) -> Any:
        issue = self.issues.get(int(params["issue_number"]))
        if issue is None:
            return 404, {}, {"message": "Not Found"}
        for key in ("title", "body", "state", "state_reason"):
            if key in r.body:
                issue[key] = r.body[key]
        return self._issue_view(issue)

    def _op_issues_list_for_repo(self, params: dict[str, str], r: Recorded) -> Any:
        state = r.query.get("state", "open")
        wanted = [label for label in r.query.get("labels", "").split(",") if label]
        chosen = [i for i in self.issues.values() if state in ("all", i["state"])
                  and all(label in i["labels"] for label in wanted)]
        return self._page([self._issue_view(i) for i in reversed(chosen)], r)

    def _issue_view(self, issue: dict[str, Any]) -> dict[str, Any]:
        view = self._example("issues/create")
        url = f"{self._base()}/issues/{issue['number']}"
        view.update(id=100000 + issue["number"], number=issue["number"], title=issue["title"],
                    body=issue["body"], state=issue["state"], state_reason=issue["state_reason"],
                    url=url, comments_url=f"{url}/comments",
                    html_url=f"https://github.com/{self.repository}/issues/{issue['number']}",
                    labels=[{"id": index + 1, "name": name, "color": "ededed", "default": False,
                             "description": None, "node_id": f"L{index}", "url": f"{url}/labels"}
                            for index, name in enumerate(issue["labels"])])
        view.pop("pull_request", None)
        return view

    def _page(self, items: list[Any], r: Recorded) -> Any:
        per_page = int(r.query.get("per_page", 30))
        page = int(r.query.get("page", 1))
        chunk = items[(page - 1) * per_page: page * per_page]
        headers = {}
        if page * per_page < len(items):
            query = "&".join(f"{k}={v}" for k, v in {**r.query, "page": page + 1}.items())
            headers["Link"] = f'<{self.url}{r.path}?{query}>; rel="next"'
        status = self._ops[r.operation or ""]["status"]
        return status, headers, chunk


class _Handler(BaseHTTPRequestHandler):
    github: FakeGitHub
    protocol_version = "HTTP/1.1"

    def _serve(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        status, headers, body = self.github.handle(self.command, self.path, dict(self.headers),
                                                   raw)
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST = do_PATCH = do_PUT = do_DELETE = _serve

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base's name
        pass


def _path_pattern(template: str) -> re.Pattern[str]:
    return re.compile(re.sub(r"\\\{(\w+)\\\}", r"(?P<\1>[^/]+)", re.escape(template)))


def _token(headers: dict[str, str]) -> str:
    value = next((v for k, v in headers.items() if k.lower() == "authorization"), "")
    scheme, _, token = value.partition(" ")
    return token if scheme.lower() in ("bearer", "token") else ""


def _rate_headers() -> dict[str, str]:
    return {"x-ratelimit-limit": "1000", "x-ratelimit-remaining": "999",
            "x-ratelimit-used": "1", "x-ratelimit-reset": str(int(time.time()) + 3600),
            "x-ratelimit-resource": "core", "Date": datetime.now(UTC).strftime(
                "%a, %d %b %Y %H:%M:%S GMT")}
