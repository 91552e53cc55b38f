"""The customer records: accounts, contacts and assets entered at the start, renewed and extended during the run.

Sales owns the accounts. At the start every account, contact and asset is
recorded; afterwards contracts are renewed (sometimes at another level),
customers buy new assets and contacts change. Cases opened after a change see
the new values.
"""

from __future__ import annotations

from simulator.context import SimContext
from simulator.customers import CONTRACT_LEVELS, Account, Asset, Contact, new_asset
from simulator.messaging import author_acl
from simulator.model import EntityRef, ParentLink


def record_account(ctx: SimContext, account: Account, author: str, event_type: str, note: str,
                   parents: tuple[ParentLink, ...] = ()) -> str:
    """A new version of the account record (with its risk flag and the incident behind it, once flagged)."""
    entity = EntityRef("account", account.account_id)
    facts = {"account_id": account.account_id, "account_name": account.name, "contract_level": account.contract_level,
             "strategic": account.strategic, "sales_owner": account.sales_owner, "domain": account.domain,
             "license_keys": list(account.license_keys)}
    flag = ctx.risk_flags.get(account.account_id)
    payload = {"account_id": account.account_id}
    if flag is not None:
        facts.update(risk_flag="at_risk", risk_incident_id=flag)
        payload["incident_id"] = flag
    ref = ctx.ledger.draft(account.account_id, "crm", "account", author, entity, f"Account {account.name}", "account",
                           facts, author_acl(ctx, None, author), {"note": note})
    return ctx.ledger.emit(event_type, (author,), "crm", entity, payload, parents, (ref,))


def flag_account(ctx: SimContext, account: Account, incident_id: str, resolved_event: str, rng) -> str:
    """Sales marks the account at risk after an incident broke its service level (the latest incident wins)."""
    ctx.risk_flags[account.account_id] = incident_id
    return record_account(ctx, account, _owner(ctx, account, rng), "crm.account_flagged",
                          f"at risk after {incident_id}",
                          (ParentLink(resolved_event, {"incident_id": incident_id, "account_id": account.account_id}),))


def record_asset(ctx: SimContext, account: Account, asset: Asset, author: str, event_type: str) -> str:
    """A version of an asset record."""
    entity = EntityRef("asset", asset.asset_id)
    facts = {"asset_id": asset.asset_id, "account_id": account.account_id, "asset_serial": asset.serial,
             "asset_model": asset.model, "purchase_date": asset.purchase_date.isoformat(),
             "warranty_end": asset.warranty_end.isoformat(), "firmware_version": asset.firmware_version}
    ref = ctx.ledger.draft(asset.asset_id, "crm", "asset", author, entity, f"Asset {asset.serial} ({asset.model})",
                           "asset", facts, author_acl(ctx, None, author), {"account_name": account.name})
    return ctx.ledger.emit(event_type, (author,), "crm", entity,
                           {"asset_id": asset.asset_id, "account_id": account.account_id}, (), (ref,))


def record_contact(ctx: SimContext, account: Account, contact: Contact, author: str, event_type: str) -> str:
    """A version of a contact record."""
    entity = EntityRef("contact", contact.contact_id)
    facts = {"contact_id": contact.contact_id, "account_id": account.account_id, "contact_name": contact.name,
             "contact_email": contact.email}
    ref = ctx.ledger.draft(contact.contact_id, "crm", "contact", author, entity, f"Contact {contact.name}", "contact",
                           facts, author_acl(ctx, None, author), {"account_name": account.name})
    return ctx.ledger.emit(event_type, (author,), "crm", entity,
                           {"contact_id": contact.contact_id, "account_id": account.account_id}, (), (ref,))


def _owner(ctx: SimContext, account: Account, rng) -> str:
    if ctx.org.people[account.sales_owner].left_at is not None:
        account.sales_owner = ctx.pick(rng, ctx.org.members("sales"))
    return account.sales_owner


def crm(ctx: SimContext):
    """Record the book of customers, then renew contracts, add assets and update contacts through the run."""
    rng = ctx.rng("crm")
    for account in ctx.accounts:
        record_account(ctx, account, account.sales_owner, "crm.account_created", "imported")
        for contact in account.contacts:
            record_contact(ctx, account, contact, account.sales_owner, "crm.contact_added")
        for asset in account.assets:
            record_asset(ctx, account, asset, account.sales_owner, "crm.asset_registered")
    next_asset = 90001
    next_contact = 8001
    while True:
        rate = 0.04 * len(ctx.accounts)
        yield ctx.work(ctx.gap(rate, rng))
        account = ctx.pick(rng, ctx.accounts)
        owner = _owner(ctx, account, rng)
        roll = rng.random()
        if roll < 0.4:
            account.contract_level = rng.choice(CONTRACT_LEVELS)
            record_account(ctx, account, owner, "crm.contract_renewed", "renewed")
        elif roll < 0.75:
            asset = new_asset(f"AST-{next_asset}", rng, ctx.calendar.date_of(ctx.now), ctx.pack.products)
            next_asset += 1
            account.assets.append(asset)
            record_asset(ctx, account, asset, owner, "crm.asset_registered")
        else:
            first, last = ctx.org.faker.first_name(), ctx.org.faker.last_name()
            contact = Contact(f"CON-{next_contact}", f"{first} {last}",
                              f"{first}.{last}".lower().replace("'", "") + f"@{account.domain}")
            next_contact += 1
            account.contacts.append(contact)
            record_contact(ctx, account, contact, owner, "crm.contact_added")
