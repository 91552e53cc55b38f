"""Handbook and service pages: sections per topic, paragraphs composed from a grammar, runbook tips."""

from __future__ import annotations


from simulator.prose.grammar import Grammar, Rng, tidy
from simulator.prose.life import _p

#: Sections of each handbook topic.
SECTIONS = {
    "security": ("Scope", "Reporting a suspected incident", "Severity and paging", "Containment",
                 "Evidence and logging", "Communication", "After the incident"),
    "escalation": ("When to escalate", "Who to contact", "Out of hours", "What to include", "Follow-up"),
    "onboarding": ("Your first week", "Accounts and equipment", "Who to ask", "Tools we use", "Working norms",
                   "Your first month"),
}


class Handbook(Grammar):
    """The handbook grammar: sections of a topic and a paragraph for each."""

    def sections(self, topic: str) -> tuple[str, ...]:
        """The section headings of a handbook topic."""
        return SECTIONS.get(topic, ("Overview", "Details", "Contacts"))

    def paragraph(self, topic: str, section: str, rng: Rng) -> str:
        """Two or three sentences for one section."""
        key = f"{topic}:{section}"
        pool = key if key in self.pools else "generic"
        rules = list(self.pools[pool])
        sentences = []
        for _ in range(min(len(rules), 2 + int(rng.random() * 2))):  # distinct rules, each a sentence
            rule = rules.pop(int(rng.random() * len(rules)))
            sentences.append(tidy(self.rule(rule, rng)).rstrip(".") + ".")
        return " ".join(sentences)


HANDBOOK = Handbook({
    "generic": _p("""Ask in the team channel if anything here is unclear|This section is reviewed every
        quarter|Owners are listed at the top of the page|Suggestions are welcome in the comments"""),
    "tip": _p("""Tip: [check the asset serial against the CRM record|confirm the contact before sharing
        anything|write down what the customer already tried] before starting.|Common pitfall: [closing the
        case before the customer confirms|skipping the entitlement check for strategic accounts|promising
        a visit date before dispatch confirms it].|If the customer is [upset|in a hurry|confused], [slow
        down|summarise what happens next|offer a callback].|Keep the ticket updated after every step; the
        next shift relies on it.|When in doubt, ask in #support before escalating."""),
    "security:Scope": _p("""This handbook covers [suspected breaches|lost laptops|phishing|leaked
        credentials|suspicious access] [on company systems|involving customer data|in any environment]|It
        applies to [employees|contractors|everyone with an account], [including|even] [interns|temporary
        staff]"""),
    "security:Reporting a suspected incident": _p("""Report [anything suspicious|a possible breach|a
        phishing attempt] [immediately|within the hour|before you log off] in #sre-oncall|Do not [forward
        the suspicious email|investigate alone|delete anything]; [preserve it|take a screenshot|note the
        time]|False alarms are fine; [silence|delay] is not"""),
    "security:Severity and paging": _p("""[SEV1|The highest severity] means [customer data may be
        exposed|an attacker may still be active]; page the on-call [at once|immediately]|Lower severities
        go to the security queue [during business hours|the same day]|The on-call decides the severity,
        not the reporter"""),
    "security:Containment": _p("""[Isolate|Disconnect] the affected [machine|account|service] [first|before
        anything else]|[Rotate|Revoke] [credentials|tokens|keys] that may be [exposed|compromised]|Keep a
        [log|timeline] of every action with the time"""),
    "security:Evidence and logging": _p("""Logs are retained [ninety days|a year] and must not be
        [edited|pruned] during an investigation|Copy [evidence|disk images|audit trails] to the restricted
        share, never to a laptop"""),
    "security:Communication": _p("""Legal decides [what customers are told|whether regulators are
        notified]|Do not discuss an open incident [in public channels|with customers|on social media]"""),
    "security:After the incident": _p("""Every security incident gets a postmortem [within a week|before
        the next sprint]|Action items are tracked [to completion|in the tracker] and reviewed [monthly|by
        leadership]"""),
    "escalation:When to escalate": _p("""Escalate when [a runbook step says so|the customer is
        strategic and blocked|a fix needs engineering|a billing credit needs approval]|Do not escalate
        [to avoid a difficult call|before checking the runbook]"""),
    "escalation:Who to contact": _p("""[Support managers|L2 leads|On-call engineers] [approve|own|
        handle] [credits|hardware swaps|incident questions]|Find the current on-call in #sre-oncall's
        topic"""),
    "escalation:Out of hours": _p("""Out of hours, only [SEV1 and SEV2|outages|data loss] page
        anyone|Everything else waits for the morning queue"""),
    "escalation:What to include": _p("""Include [the case id|the account|the asset serial|what was
        tried] and [the deadline|the customer's impact]|One escalation per problem; link the others"""),
    "escalation:Follow-up": _p("""If nobody answers [within a working day|by the next shift], [chase
        once|escalate to the manager]|Close the loop with the customer [once|as soon as] the answer
        arrives"""),
    "onboarding:Your first week": _p("""Your manager [books|schedules] [intro calls|a welcome lunch|a tour]
        [for your first day|in the first week]|Expect [a lot of reading|shadowing|setup] and [few|no]
        deadlines|Pick a buddy from the team to [ask silly questions|pair with]"""),
    "onboarding:Accounts and equipment": _p("""IT ships [a laptop|a headset|a monitor] [before you
        start|on day one]|Request access to [ticketing|the CRM|the wiki|deploy tools] through your
        manager|Turn on two-factor authentication [before|on] your first login"""),
    "onboarding:Who to ask": _p("""[HR|People operations] answers [payroll|benefits|leave] questions|Your
        buddy knows [where things live|the unwritten rules]|#general is for everything else"""),
    "onboarding:Tools we use": _p("""We [track|keep] [cases|work|incidents] in [ticketing|the tracker]
        and [talk|chat] in channels, not email|Meetings have notes; [read them|skim them] if you
        missed one"""),
    "onboarding:Working norms": _p("""Core hours are [ten to four|late morning to mid afternoon]; [the
        rest is flexible|async the rest of the time]|[Decline|Skip] meetings without an agenda|Write
        things down; [memory|hallway chat] does not scale"""),
    "onboarding:Your first month": _p("""By the end of the month [you will have|expect to have] [closed
        your first cases|shipped a small change|joined a customer call]|Your manager checks in [weekly|every
        Friday] on how it's going"""),
})

_SERVICE = Grammar({
    "what": ["<<s>> [handles|serves|runs] [requests from the customer portal|the back office jobs|traffic from "
             "devices in the field|the billing workflows|synchronisation with partner systems]."],
    "owner": ["[Owner: engineering. On-call: SRE rotation.|Service owned by engineering, operated by SRE.|"
              "Maintainers: engineering; pager: SRE.]"],
    "deps": ["It depends on [the primary database|the message queue|the identity service|object storage] and "
             "[the cache|the payments gateway|the notification service|nothing else critical]."],
    "dash": ["Dashboards: [latency and error rate|saturation and queue depth|request volume by region]. "
             "[Alerts page SRE when|SRE is paged if] [error rate stays above five percent|latency doubles|the "
             "queue backs up] [for ten minutes|for a quarter of an hour|twice in an hour]."],
    "known": ["Known quirks: [cold starts after a deploy|slow queries at month end|retries that pile up when a "
              "partner is down|a cache that needs warming]."],
})


def SERVICE_PAGE(service: str, rng: Rng) -> list[str]:
    """The body lines of a service page."""
    lines = [_SERVICE.say("{what}", rng).replace("<<s>>", service), "", _SERVICE.say("{owner}", rng),
             "Deploys go through the change process (CHG records) and are announced in #deploys.",
             "", "## Operations", _SERVICE.say("{deps}", rng), _SERVICE.say("{dash}", rng), _SERVICE.say("{known}", rng)]
    return lines
