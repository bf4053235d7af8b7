"""Helm's printers: the status block (install, upgrade, status, test, get all), the
release metadata, Go's time layouts as Helm prints them, and `-o json|yaml`
(encoding/json on one line, sigs.k8s.io/yaml)."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from datetime import datetime


def encode_data(data: Any, output: str) -> str:
    """The text Helm writes for `data` under -o json or -o yaml, final newline included."""
    if output == "json":
        from runner.release.codec import go_json

        return go_json(data) + "\n"
    from runner.encoding.goyaml import dump

    return dump(data)


def print_result(result: Any, output: str, *, hide_notes: bool = False, debug: bool = False) -> None:
    """install/upgrade: our notes on stderr; Helm's status block (with --debug, the values,
    hooks and manifest too), or (-o json|yaml) Helm's release object, as `helm install -o
    json` prints it (`jq .info.status` works)."""
    for note in result.notes:
        print(f"note: {note}", file=sys.stderr)
    if output != "table":
        sys.stdout.write(encode_data(result.release.to_json(), output))
        return
    values = None
    if debug:
        from runner.actions.query import computed_values

        values = (result.release.config, computed_values(result.release))
    sys.stdout.write(status_text(result.release, dry_run=bool(result.dry_run), hide_notes=hide_notes,
                                 debug_values=values))


def result_json(result: Any) -> dict[str, Any]:
    """deploy-runner's result document (what the action did: applied, deleted, hooks,
    notes; the release record under "release"), richer than Helm's release object: the
    `run` command's JSON output, and `rollback -o json`'s."""
    from dataclasses import asdict

    data = asdict(result)
    data["release"] = result.release.to_json()
    return data


def status_text(release: Any, dry_run: bool = False, resources: str = "", *, hide_notes: bool = False,
                show_metadata: bool = False, debug_values: tuple[Any, Any] | None = None) -> str:
    """Helm's statusPrinter (table output of install, upgrade, status, test, get all)."""
    info = release.info
    lines = [f"NAME: {release.name}"]
    if info.last_deployed:
        lines.append(f"LAST DEPLOYED: {ansic(info.last_deployed)}")
    lines += [f"NAMESPACE: {release.namespace}", f"STATUS: {info.status}", f"REVISION: {release.version}"]
    if show_metadata:
        meta = (release.chart or {}).get("metadata") or {}
        lines += [f"CHART: {meta.get('name', '')}", f"VERSION: {meta.get('version', '')}",
                  f"APP_VERSION: {meta.get('appVersion', '')}"]
    lines.append(f"DESCRIPTION: {info.description}")
    if resources:
        lines.append(f"RESOURCES:\n{resources}")
    lines += _test_suite(release)
    if debug_values is not None:
        lines += _values_sections(*debug_values)
    if dry_run or debug_values is not None or info.description.lower() == "dry run complete":
        lines += ["HOOKS:"] + [f"---\n# Source: {h.path}\n{h.manifest}" for h in release.hooks]
        lines += [f"MANIFEST:\n{release.manifest}"]
    if info.notes and not hide_notes:
        lines.append(f"NOTES:\n{info.notes.strip()}")
    return "\n".join(lines) + "\n"


def _test_suite(release: Any) -> list[str]:
    """TEST SUITE: None without test hooks; else each test hook that has run."""
    tests = [h for h in release.hooks if "test" in h.events]
    if not tests:
        return ["TEST SUITE: None"]
    return [f"TEST SUITE:     {h.name}\nLast Started:   {ansic(h.last_run.started_at)}\n"
            f"Last Completed: {ansic(h.last_run.completed_at) or GO_ZERO_ANSIC}\nPhase:          {h.last_run.phase}"
            for h in tests if h.last_run.started_at]


GO_ZERO_ANSIC = "Mon Jan  1 00:00:00 0001"


def _values_sections(user: Any, computed: Any) -> list[str]:
    from runner.funcs.helm import to_yaml

    return [f"USER-SUPPLIED VALUES:\n{to_yaml(user)}\n",
            f"COMPUTED VALUES:\n{to_yaml(computed)}\n"]


def ansic(stamp: str) -> str:
    """Go's time.ANSIC layout (Mon Jan _2 15:04:05 2006), in UTC."""
    from runner.release.record import parse_go_time

    if not stamp:
        return ""
    moment: datetime = parse_go_time(stamp)
    return moment.strftime("%a %b ") + f"{moment.day:>2}" + moment.strftime(" %H:%M:%S %Y")


def release_metadata(release: Any) -> dict[str, Any]:
    """action.Metadata of a release record (`get metadata`), in its JSON field order."""
    meta = (release.chart or {}).get("metadata") or {}
    data: dict[str, Any] = {"name": release.name, "chart": meta.get("name", ""),
                            "version": meta.get("version", ""), "appVersion": meta.get("appVersion", "")}
    if meta.get("annotations"):
        data["annotations"] = dict(sorted(meta["annotations"].items()))  # a Go map: sorted
    if release.labels:
        data["labels"] = dict(sorted(release.labels.items()))
    if meta.get("dependencies"):
        data["dependencies"] = meta["dependencies"]
    deployed = release.info.last_deployed
    data.update(namespace=release.namespace, revision=release.version, status=release.info.status,
                deployedAt=_rfc3339(deployed) if deployed else "0001-01-01T00:00:00Z")
    if release.apply_method:
        data["applyMethod"] = release.apply_method
    return data


def metadata_text(data: dict[str, Any]) -> str:
    """metadataWriter.WriteTable: annotations as a label set, dependency names sorted."""
    def label_set(mapping: dict[str, str] | None) -> str:
        return ",".join(f"{k}={v}" for k, v in sorted((mapping or {}).items()))

    dependencies = ",".join(sorted(d.get("name", "") for d in data.get("dependencies") or []))
    text = (f"NAME: {data['name']}\nCHART: {data['chart']}\nVERSION: {data['version']}\n"
            f"APP_VERSION: {data['appVersion']}\nANNOTATIONS: {label_set(data.get('annotations'))}\n"
            f"LABELS: {label_set(data.get('labels'))}\n"
            f"DEPENDENCIES: {dependencies}\nNAMESPACE: {data['namespace']}\n"
            f"REVISION: {data['revision']}\nSTATUS: {data['status']}\n"
            f"DEPLOYED_AT: {data['deployedAt']}\n")
    method = APPLY_METHOD_NAMES.get(data.get("applyMethod", ""))
    return text + (f"APPLY_METHOD: {method}\n" if method else "")


APPLY_METHOD_NAMES = {"ssa": "server-side apply", "csa": "client-side apply"}


def _rfc3339(stamp: str) -> str:
    """time.RFC3339 of a stored timestamp: whole seconds, Z for UTC."""
    from runner.release.record import parse_go_time

    moment = parse_go_time(stamp)
    text = moment.strftime("%Y-%m-%dT%H:%M:%S%z")
    zone = text[-5:]
    return text[:-5] + ("Z" if zone == "+0000" else f"{zone[:3]}:{zone[3:]}")


def go_time_text(stamp: str) -> str:
    """A stored time.Time as fmt prints it (2006-01-02 15:04:05.999999999 +0000 UTC); the
    zero time when there is none."""
    return go_time_string(stamp) if stamp else "0001-01-01 00:00:00 +0000 UTC"


def go_time_string(stamp: str) -> str:
    """time.Time.String() of an RFC 3339 stamp: `2006-01-02 15:04:05.999999999 -0700 MST`,
    the zone named UTC at offset zero (as Go names a parsed zone that matches Local=UTC)."""
    date, _, clock = stamp.partition("T")
    zone_at = max(clock.rfind("+"), clock.rfind("-"), clock.find("Z") if "Z" in clock else -1)
    time_part, zone = clock[:zone_at], clock[zone_at:]
    offset = "+0000" if zone in ("Z", "+00:00", "-00:00") else zone.replace(":", "")
    name = "UTC" if offset == "+0000" else offset
    seconds, _, fraction = time_part.partition(".")
    fraction = fraction.rstrip("0")
    return f"{date} {seconds}{'.' + fraction if fraction else ''} {offset} {name}"

