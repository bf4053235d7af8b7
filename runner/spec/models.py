"""The spec's shape as pydantic v2 models: what `deploy-runner schema` prints and what a
spec file or an event payload is validated against.

helmfile's keys keep their names and meaning (repositories; releases with name,
namespace, chart, version, values, set, setString, needs, installed, labels,
createNamespace, wait, timeout, historyMax, atomic, ...; helmDefaults;
environments; commonLabels), so a plain helmfile.yaml validates. deploy-runner's
own keys (historyDepth, includeHistoryValues, applyMethod, forceConflicts,
rollbackOnFailure, secretValues, hookLogs, when, preview) sit beside them, per
release and in `defaults`. helmfile keys that only steer helmfile itself
(its diff output, its dependency and tracking machinery) are fields marked
deprecated (`_ignored`): accepted, and warned about as ignored; those whose meaning deploy-runner cannot
honour (templating, secrets decryption, hooks that run commands, nested
helmfiles) are refused (REFUSED), never silently dropped.

Imported only by runner.spec's loader and the commands that validate a spec:
pydantic stays off the render path.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from pydantic.alias_generators import to_camel

ApplyMethod = Literal["ssa", "csa", "auto"]
WaitStrategy = Literal["watcher", "legacy", "hookOnly", "none"]
# A values entry: a file path (relative to the spec file) or an inline mapping.
ValuesEntry = Annotated[str | dict[str, Any], Field(description="a values file path (relative to the "
                                                                 "spec file) or an inline mapping")]

# helmfile keys deploy-runner cannot honour: an error naming them.
REFUSED = {
    "secrets": "it decrypts with helm-secrets; list plain files in secretValues",
    "hooks": "its hooks run commands; deploy-runner runs the chart's Helm hooks only",
    "helmfiles": "nested helmfiles: list every release in one spec",
    "bases": "it needs helmfile's layering and templating",
    "templates": "it needs helmfile's templating",
    "inherit": "it needs helmfile's templating",
    "defaultInherit": "it needs helmfile's templating",
    "valuesTemplate": "it needs helmfile's templating",
    "setTemplate": "it needs helmfile's templating",
    "verifyTemplate": "it needs helmfile's templating",
    "waitTemplate": "it needs helmfile's templating",
    "installedTemplate": "it needs helmfile's templating",
    "conditionTemplate": "it needs helmfile's templating",
    "condition": "it reads helmfile's environment values; use installed or when",
    "kubeContext": "choose the context with --kube-context: a run works on one cluster",
    "context": "choose the context with --kube-context: a run works on one cluster",
    "args": "extra helm arguments; use the spec's keys",
    "syncArgs": "extra helm arguments; use the spec's keys",
    "postRenderer": "post-renderers are not in specs yet",
    "postRendererArgs": "post-renderers are not in specs yet",
    "strategicMergePatches": "helmfile's chartify patches",
    "jsonPatches": "helmfile's chartify patches",
    "transformers": "helmfile's chartify transformers",
    "dependencies": "helmfile's chartify dependencies",
    "forceNamespace": "helmfile's chartify namespace forcing",
    "adopt": "use takeOwnership",
    "updateStrategy": "reinstallIfForbidden",
    "valuesPathPrefix": "write the values paths in full",
    "forceGoGetter": "go-getter chart URLs",
    "llm": "helmfile doctor's settings",
    "registryConfig": "registry credentials come from Helm's registry config",
}


class _Model(BaseModel):
    """camelCase keys (helmfile's), unknown keys refused."""

    model_config = ConfigDict(extra="forbid", alias_generator=to_camel, populate_by_name=False,
                              validate_by_alias=True, serialize_by_alias=True)


def _ignored(description: str = "") -> Any:
    return Field(None, description=f"helmfile's; ignored by deploy-runner{description}",
                 json_schema_extra={"deprecated": True})


class Repository(_Model):
    """A chart repository (helmfile's `repositories` entry): charts name it as `NAME/chart`."""

    name: str = Field(min_length=1, description="how charts refer to it: NAME/chart")
    url: str = Field(min_length=1, description="an HTTP(S) or s3:// chart repository, or with oci: true "
                                               "an OCI registry path (host/path)")
    oci: bool = Field(False, description="the url is an OCI registry: charts are NAME/chart -> "
                                         "oci://URL/chart")
    username: str = Field("", description="default: the variable NAME_USERNAME (as helmfile)")
    password: str = Field("", description="default: the variable NAME_PASSWORD (as helmfile)")
    ca_file: str = ""
    cert_file: str = ""
    key_file: str = ""
    skip_tls_verify: bool = Field(False, alias="skipTLSVerify")
    plain_http: bool = False
    pass_credentials: bool = False
    verify: bool = False
    keyring: str = ""
    managed: Any = _ignored()


class SetValue(_Model):
    """One `--set` (or with setString, `--set-string`): a value, a list of values, or a file."""

    name: str = Field(min_length=1, description="the values path, as --set writes it (a.b[0].c)")
    value: Any = Field(None, description="a scalar, set as --set name=value")
    values: list[Any] | None = Field(None, description="a list, set as --set name={a,b}")
    file: str | None = Field(None, description="a file whose content is the value "
                                               "(--set-file; relative to the spec file)")

    @model_validator(mode="after")
    def _one_source(self) -> SetValue:
        given = [k for k in ("value", "values", "file") if k in self.model_fields_set]
        if len(given) > 1:
            raise ValueError(f"give one of value, values or file, not {' and '.join(given)}")
        return self


class HookLogs(_Model):
    """Hook Job/Pod logs in the run's result (helm.sh/hook-output-log-policy chooses which)."""

    show: bool = Field(True, description="include hook logs in the result and its reports")
    cap: int = Field(200, ge=0, description="lines kept per hook log (the last ones; 0: all)")


class When(_Model):
    """Which events deploy the release: every list given must match (no event: always)."""

    branches: list[str] = Field(default_factory=list, description="branch globs (main, release/*)")
    paths: list[str] = Field(default_factory=list, description="changed-path globs (charts/api/**); "
                                                               "the release runs when one changed")


class Preview(_Model):
    """Pull-request preview deploys of this release (the GitHub Action's preview mode)."""

    enabled: bool = False
    namespace: str | None = Field(None, description="the preview's namespace, e.g. pr-${pr}")
    values: list[ValuesEntry] = Field(default_factory=list)
    set: list[SetValue] = Field(default_factory=list)
    url: str = Field("", description="where the preview can be seen (the pull request's 'View "
                                     "deployment'), e.g. https://web-pr-${pr}.example.com")
    environment: str = Field("", description="the GitHub deployment environment (default "
                                             "pr-<number>)")


class DeploySettings(_Model):
    """deploy-runner's own per-release settings: in a release, or as `defaults` for all."""

    history_depth: int | None = Field(None, ge=0, description="earlier revisions the templates see as "
                                                             ".Release.History (--release-history-max)")
    include_history_values: bool | None = Field(None, description="their values too "
                                                                  "(--include-history-values)")
    apply_method: ApplyMethod | None = Field(None, description="ssa: server-side apply; csa: client-side "
                                                               "three-way merge; auto: as the release's "
                                                               "last record (--server-side)")
    force_conflicts: bool | None = Field(None, description="take over fields other managers own "
                                                           "(server-side apply)")
    wait: WaitStrategy | bool | None = Field(None, description="watcher | legacy | hookOnly | none "
                                                               "(helmfile's true is watcher, false "
                                                               "hookOnly)")
    wait_for_jobs: bool | None = None
    timeout: str | int | float | None = Field(None, description="a Go duration (5m, 90s) or seconds "
                                                               "as helmfile has it")
    rollback_on_failure: bool | None = Field(None, description="roll back (or uninstall a first "
                                                               "install) when the deploy fails")
    atomic: bool | None = Field(None, description="helmfile's name for rollbackOnFailure")
    create_namespace: bool | None = Field(None, description="create the namespace when missing "
                                                            "(default true)")
    secret_values: list[str] | None = Field(None, description="values files whose every leaf is "
                                                              "secret: redacted in all output "
                                                              "(--secret-values)")
    hook_logs: HookLogs | None = None
    history_max: int | None = Field(None, ge=0, description="revisions kept (--history-max; default 10)")
    take_ownership: bool | None = None
    cleanup_on_fail: bool | None = None
    skip_schema_validation: bool | None = None
    skip_crds: bool | None = Field(None, alias="skipCRDs")
    devel: bool | None = Field(None, description="admit pre-release chart versions")
    verify: bool | None = Field(None, description="verify the chart's provenance")
    keyring: str | None = None
    description: str | None = None
    server_side: Literal["true", "false", "auto"] | bool | None = Field(
        None, description="helmfile's spelling of applyMethod (true: ssa, false: csa)")
    insecure_skip_tls_verify: bool | None = Field(None, alias="insecureSkipTLSVerify")
    plain_http: bool | None = None

    @field_validator("timeout")
    @classmethod
    def _duration(cls, value: Any) -> Any:
        if isinstance(value, str):
            from runner.golang.time import parse_duration

            try:
                if parse_duration(value) < 0:
                    raise ValueError("must not be negative")
            except ValueError as err:
                raise ValueError(f"must be a duration such as 5m or 90s, or seconds ({err})") from None
        elif isinstance(value, int | float) and value < 0:
            raise ValueError("must not be negative")
        return value


class HelmDefaults(DeploySettings):
    """helmfile's helmDefaults: the same settings, helmfile's spelling."""

    diff_args: Any = _ignored()
    template_args: Any = _ignored()
    wait_retries: Any = _ignored()
    recreate_pods: Any = _ignored()
    force: bool | None = Field(None, description="--force-replace: objects replaced, not patched")
    skip_deps: Any = _ignored()
    skip_refresh: Any = _ignored()
    reuse_values: Any = _ignored()
    cascade: Any = _ignored()
    delete_wait: Any = _ignored()
    delete_timeout: Any = _ignored()
    suppress_output_line_regex: Any = _ignored()
    sync_release_labels: Any = _ignored()
    resolve_oci_versions: Any = Field(None, alias="resolveOCIVersions",
                                      description="helmfile's; ignored by deploy-runner",
                                      json_schema_extra={"deprecated": True})
    enable_dns: Any = Field(None, alias="enableDNS", description="helmfile's; ignored by deploy-runner",
                            json_schema_extra={"deprecated": True})
    track_mode: Any = _ignored()
    disable_auto_detected_kube_version_for_diff: Any = _ignored()


class ReleaseSettings(DeploySettings):
    """Everything a release has but its name: also an environment's override of a release."""

    namespace: str | None = Field(None, description="default: --namespace, else the kubeconfig's")
    chart: str | None = Field(None, description="a path (relative to the spec file), REPO/chart "
                                                "naming a repositories entry, oci://..., "
                                                "s3://bucket/prefix/name or a chart URL")
    version: str | None = Field(None, description="a chart version constraint (~1.2, ^2.0.0, 1.4.0)")
    values: list[ValuesEntry] | None = None
    set: list[SetValue] | None = None
    set_string: list[SetValue] | None = None
    needs: list[str] | None = Field(None, description="releases deployed first: NAME or NAMESPACE/NAME")
    installed: bool | None = Field(None, description="false uninstalls the release (default true)")
    labels: dict[str, str] | None = Field(None, description="labels of the release (selection, and "
                                                            "the stored record)")
    when: When | None = None
    preview: Preview | None = None
    force: bool | None = Field(None, description="--force-replace: objects replaced, not patched")
    # helmfile's, ignored
    missing_file_handler: Any = _ignored()
    missing_file_handler_config: Any = _ignored()
    suppress_diff: Any = _ignored()
    suppress_output_line_regex: Any = _ignored()
    skip_deps: Any = _ignored()
    skip_refresh: Any = _ignored()
    disable_validation: Any = _ignored()
    disable_validation_on_install: Any = _ignored()
    disable_open_api_validation: Any = Field(None, alias="disableOpenAPIValidation",
                                             description="helmfile's; ignored by deploy-runner",
                                             json_schema_extra={"deprecated": True})
    wait_retries: Any = _ignored()
    recreate_pods: Any = _ignored()
    reuse_values: Any = _ignored()
    cascade: Any = _ignored()
    sync_release_labels: Any = _ignored()
    unit_tests: Any = _ignored()
    continue_on_error: Any = _ignored()
    track_mode: Any = _ignored()
    track_timeout: Any = _ignored()
    track_logs: Any = _ignored()
    track_kinds: Any = _ignored()
    skip_kinds: Any = _ignored()
    track_resources: Any = _ignored()
    kubedog_qps: Any = Field(None, alias="kubedogQPS", description="helmfile's; ignored by deploy-runner",
                             json_schema_extra={"deprecated": True})
    kubedog_burst: Any = _ignored()
    resolve_oci_versions: Any = Field(None, alias="resolveOCIVersions",
                                      description="helmfile's; ignored by deploy-runner",
                                      json_schema_extra={"deprecated": True})
    enable_dns: Any = Field(None, alias="enableDNS", description="helmfile's; ignored by deploy-runner",
                            json_schema_extra={"deprecated": True})
    api_versions: Any = _ignored()
    kube_version: Any = _ignored()
    disable_auto_detected_kube_version_for_diff: Any = _ignored()


class Release(ReleaseSettings):
    """One Helm release (helmfile's `releases` entry)."""

    name: str = Field(min_length=1, description="the release name")
    chart: str = Field(min_length=1, description="a path (relative to the spec file), REPO/chart "
                                                 "naming a repositories entry, oci://..., "
                                                "s3://bucket/prefix/name or a chart URL")


class Eks(_Model):
    """The EKS cluster an environment deploys to, reached with the environment's AWS
    credentials and no kubeconfig (docs/eks.md); a cluster named on the command line wins."""

    cluster: str = Field(min_length=1, description="the EKS cluster's name (--eks-cluster)")
    region: str = Field("", description="its AWS region (--eks-region; default: AWS_REGION, the profile's)")
    role_arn: str = Field("", alias="roleArn", description="an IAM role to assume first (--eks-role-arn)")


class Environment(_Model):
    """An environment chosen with --environment: values for every release, per-release
    overrides by release name, and the cluster it deploys to."""

    eks: Eks | None = Field(None, description="the EKS cluster this environment deploys to")
    values: list[ValuesEntry] = Field(default_factory=list, description="values files or mappings "
                                                                        "merged under every release's "
                                                                        "own")
    releases: dict[str, ReleaseSettings] = Field(default_factory=dict,
                                                 description="release name -> settings that replace "
                                                             "the release's")
    missing_file_handler: Any = _ignored()
    missing_file_handler_config: Any = _ignored()


class GitHub(_Model):
    """What the GitHub Action allows (docs/github.md)."""

    deploy_teams: list[str] = Field(default_factory=list, description=(
        "teams (ORG/TEAM-SLUG) whose members may click a release check run's rollback and "
        "redeploy buttons, besides those with write permission on the repository"))

    @model_validator(mode="after")
    def _org_and_slug(self) -> GitHub:
        for team in self.deploy_teams:
            org, slash, slug = team.partition("/")
            if not (org and slash and slug) or "/" in slug:
                raise ValueError(f"deployTeams: {team!r} is not ORG/TEAM-SLUG")
        return self


class Spec(_Model):
    """A deploy-runner spec (deploy-runner.yaml); a plain helmfile.yaml is one too."""

    repositories: list[Repository] = Field(default_factory=list)
    defaults: DeploySettings = Field(default_factory=DeploySettings,
                                     description="deploy-runner's settings for every release")
    helm_defaults: HelmDefaults = Field(default_factory=HelmDefaults,
                                        description="helmfile's defaults (defaults wins over them)")
    environments: dict[str, Environment] = Field(default_factory=dict)
    releases: list[Release] = Field(default_factory=list)
    common_labels: dict[str, str] = Field(default_factory=dict,
                                          description="labels added to every release")
    github: GitHub = Field(default_factory=GitHub, description="the GitHub Action's settings")
    # helmfile's, ignored
    lock_file_path: Any = _ignored()
    helm_binary: Any = _ignored()
    kustomize_binary: Any = _ignored()
    missing_file_handler: Any = _ignored()
    missing_file_handler_config: Any = _ignored()
    api_versions: Any = _ignored()
    kube_version: Any = _ignored()
    values: Any = _ignored(" (template values of helmfile's; use environments.NAME.values)")
