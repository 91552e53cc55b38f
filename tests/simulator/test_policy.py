"""The access policy answers "could A see X at T" with the right gate."""

from datetime import datetime, timedelta

from orgbench.core.clock import UTC
from simulator.model import Acl, ArtifactVersion, EntityRef
from simulator.policy import AccessPolicy, Grant, Membership, PrivateSpace, RoleAssignment

T0 = datetime(2026, 1, 5, 9, tzinfo=UTC)


def _version(subsystem="ticketing", created=T0, acl=Acl()):
    return ArtifactVersion("CASE-1", 1, subsystem, "ticket", created, "P-1", EntityRef("case", "CASE-1"),
                           "t", "b", {}, acl)


def _policy():
    return AccessPolicy(
        roles={"support_l1": ["ticketing"], "engineer": ["deploys"]},
        assignments=[
            RoleAssignment("P-1", "support_l1", valid_from=T0 - timedelta(days=10), valid_to=T0 + timedelta(days=5)),
            RoleAssignment("P-2", "engineer", valid_from=T0 - timedelta(days=10)),
        ],
        grants=[Grant("G-1", "P-2", "ticketing", valid_from=T0 + timedelta(days=1), valid_to=T0 + timedelta(days=2))],
        spaces=[PrivateSpace("SP-1", "chat", "ops", (Membership("P-2", valid_from=T0, valid_to=T0 + timedelta(days=3)),))],
    )


def test_horizon_takes_precedence():
    access = _policy().check("P-2", _version(created=T0 + timedelta(hours=1)), T0)
    assert (access.allowed, access.gate) == (False, "horizon")
    assert _policy().violations("P-2", _version(created=T0 + timedelta(hours=1)), T0) == ("horizon", "subsystem")


def test_departed_actor_sees_nothing_after_leaving():
    policy = _policy()
    assert policy.can_see("P-1", _version(), T0)
    assert policy.check("P-1", _version(), T0 + timedelta(days=6)).gate == "actor"


def test_grant_window_and_private_space():
    policy = _policy()
    assert policy.check("P-2", _version(), T0).gate == "subsystem"
    assert policy.can_see("P-2", _version(), T0 + timedelta(days=1, hours=1))
    assert policy.check("P-2", _version(), T0 + timedelta(days=2)).gate == "subsystem"
    chat = _version("chat", acl=Acl(space="SP-1"))
    assert policy.check("P-1", chat, T0 + timedelta(hours=1)).gate == "actor"
    assert policy.check("P-2", chat, T0 + timedelta(hours=1)).gate == "subsystem"
    assert policy.can_see("P-2", _version("chat", acl=Acl(space="SP-1", participants=("P-2",))), T0)
    assert policy.check("P-2", chat, T0 + timedelta(days=4)).gate == "actor"


def test_policy_round_trips_through_json():
    policy = _policy()
    again = AccessPolicy.from_json(policy.to_json())
    assert again.to_json() == policy.to_json()
