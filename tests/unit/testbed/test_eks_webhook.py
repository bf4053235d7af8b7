"""The testbed's EKS authenticator, its rules that need no STS: aws-iam-authenticator's ARN
canonicalisation, the mapping (with its username templates) and the token's shape."""

from __future__ import annotations

import base64
from datetime import UTC, datetime, timedelta

import pytest

from testbed.eks_webhook import Identity, Refused, Settings, canonical_arn, presigned_url, user_for

STS = "http://127.0.0.1:5000"
SIGNED = "20260304T050607Z"


def token(query: str, host: str = STS) -> str:
    return "k8s-aws-v1." + base64.urlsafe_b64encode(f"{host}/?{query}".encode()).decode().rstrip("=")


GOOD = ("Action=GetCallerIdentity&Version=2011-06-15&X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKID%2F20260304"
        f"%2Feu-west-1%2Fsts%2Faws4_request&X-Amz-Date={SIGNED}&X-Amz-Expires=60&X-Amz-SignedHeaders=host%3Bx-k8s-aws-id"
        "&X-Amz-Signature=abc")
AT = datetime(2026, 3, 4, 5, 6, 7, tzinfo=UTC)


@pytest.mark.parametrize(("arn", "canonical", "session"), [
    ("arn:aws:sts::123456789012:assumed-role/deployer/deploy-runner", "arn:aws:iam::123456789012:role/deployer",
     "deploy-runner"),
    ("arn:aws-cn:sts::123456789012:assumed-role/r/s", "arn:aws-cn:iam::123456789012:role/r", "s"),
    ("arn:aws:iam::123456789012:user/ci", "arn:aws:iam::123456789012:user/ci", ""),
    ("arn:aws:iam::123456789012:role/deployer", "arn:aws:iam::123456789012:role/deployer", ""),
])
def test_assumed_role_arns_are_canonicalised_to_their_role(arn, canonical, session):
    assert canonical_arn(arn) == (canonical, session)


def test_the_mapping_names_the_user_and_groups_with_its_templates():
    settings = Settings("c", STS, map_roles=[{"rolearn": "arn:aws:iam::1:role/Deployer",
                                              "username": "deploy:{{AccountID}}:{{SessionName}}", "groups": ["g"]}])
    identity = Identity("arn:aws:sts::1:assumed-role/Deployer/s1", "arn:aws:iam::1:role/deployer", "1", "AROA:s1",
                        "s1", "ASIA")
    user = user_for(identity, settings)
    assert (user["username"], user["groups"], user["extra"]["canonicalArn"]) == (
        "deploy:1:s1", ["g"], ["arn:aws:iam::1:role/deployer"])
    with pytest.raises(Refused, match="ARN is not mapped: arn:aws:iam::1:user/x"):
        user_for(Identity("arn:aws:iam::1:user/x", "arn:aws:iam::1:user/x", "1", "AIDA", "", "AKIA"), settings)


def test_the_token_must_be_a_presigned_caller_identity_for_the_trusted_sts():
    settings = Settings("c", STS)
    url, query = presigned_url(token(GOOD), settings, AT + timedelta(minutes=14))
    assert (url.startswith(STS), query["x-amz-date"]) == (True, SIGNED)
    refusals = {
        "prefix": ("k8s-aws-v2." + token(GOOD)[11:], 'missing expected "k8s-aws-v1." prefix'),
        "host": (token(GOOD, "https://sts.amazonaws.com"), "unexpected STS endpoint"),
        "action": (token(GOOD.replace("GetCallerIdentity", "AssumeRole")), "unexpected action"),
        "header": (token(GOOD.replace("host%3Bx-k8s-aws-id", "host")), "did not sign the x-k8s-aws-id header"),
        "extra": (token(GOOD + "&Other=1"), "non-whitelisted query parameter 'Other'"),
        "twice": (token(GOOD + "&Action=GetCallerIdentity"), "'Action' given more than once"),
        "missing": (token(GOOD.replace("&X-Amz-Expires=60", "")), "lacks x-amz-expires"),
    }
    for text, reason in refusals.values():
        with pytest.raises(Refused, match=reason):
            presigned_url(text, settings, AT)
    with pytest.raises(Refused, match="X-Amz-Date parameter is expired"):
        presigned_url(token(GOOD), settings, AT + timedelta(minutes=15, seconds=1))
