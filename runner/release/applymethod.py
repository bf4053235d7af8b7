"""Which apply method a release operation uses: rules about the record (HIP-0023).

A record stores how its objects were written (`apply_method`: "ssa" or "csa";
empty in a Helm 3 record). `--server-side=auto` follows the record the
operation starts from: upgrade the latest one, rollback the target revision,
install a new release (no record: server-side apply).
"""

from __future__ import annotations

from runner.errors import UsageError
from runner.release.record import CLIENT_SIDE_APPLY, SERVER_SIDE_APPLY

SERVER_SIDE_CHOICES = ("true", "false", "auto")


def resolve_server_side(option: str, apply_method: str = SERVER_SIDE_APPLY) -> bool:
    """getUpgradeServerSideValue: "true"/"false" as given, "auto" from the record's method."""
    if option == "auto":
        return apply_method == SERVER_SIDE_APPLY
    if option in ("true", "false"):
        return option == "true"
    raise UsageError(f"invalid/unknown release server-side apply method: {option}")


def method_for(server_side: bool) -> str:
    """The value a new record stores."""
    return SERVER_SIDE_APPLY if server_side else CLIENT_SIDE_APPLY


def csa_force_explanation(apply_method: str, whose: str) -> str:
    """Why --force-conflicts did nothing: auto resolved to client-side apply."""
    method = apply_method or "unset (a Helm 3 record)"
    return ("--force-conflicts has no effect here: --server-side=auto resolved to client-side "
            f"apply because the {whose} apply method is {method}; pass --server-side=true "
            "to switch this release to server-side apply (field managers are migrated).")
