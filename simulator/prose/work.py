"""Words for work, by team: what engineers, on-call, support, sales, legal, HR and leadership talk about."""

from __future__ import annotations

from simulator.prose.life import _p

#: Which word group each team speaks from.
GROUP = {"engineering": "eng", "sre": "sre", "support_l1": "support", "support_l2": "support", "sales": "sales",
         "legal": "legal", "hr": "hr", "leadership": "lead"}

WORK = {
    "eng_thing": _p("""the retry logic in the sync worker|the pagination bug in the export endpoint|the flaky
        integration test for checkout|our dependency upgrades|the caching layer in front of the catalogue|the
        feature flag cleanup|the schema for the audit log|the rate limiter|the queue consumer that keeps
        timing out|the search indexer|the config loader|the new onboarding wizard|the notification service
        refactor|the memory leak in the report generator|the date parsing in the importer|the webhook
        signature check|the mobile release branch|the build cache|our linting rules|the API versioning
        proposal|the connection pool settings|the firmware update client|the dashboard rewrite|the
        localisation strings|the accessibility fixes|the telemetry pipeline|the deprecation of the old SDK|
        the database index on orders|the serialisation of timestamps|the circuit breaker thresholds|the
        load test harness|the upload chunking|the permissions model|the batch scheduler|the image resizer|
        the thumbnail service|the password hashing migration|the monorepo tooling|the container base image"""),
    "eng_ask": _p("""can you review my PR for {eng_thing}? [It's small|It's mostly tests|Sorry, it grew|Two
        files, promise]|would you pair with me on {eng_thing} [this afternoon|tomorrow|after standup]?|does
        anyone remember why {eng_thing} was written that way?|is the CI queue slow for everyone or just
        me?|who owns {eng_thing} these days?|any objections to merging {eng_thing} before the freeze?|
        could someone rerun the pipeline on my branch? It failed on {eng_thing}|what's our convention for
        naming migrations again?|should {eng_thing} live in its own module?|anyone seen a segfault in the
        test runner today?"""),
    "eng_update": _p("""finishing {eng_thing}, then reviews|blocked on {eng_thing} until I hear back from
        platform|writing tests for {eng_thing}|profiling {eng_thing}, numbers look odd|pairing on {eng_thing}|
        cleaning up {eng_thing} before the release|spiking an approach for {eng_thing}|rebasing {eng_thing}
        onto main, conflicts everywhere|documenting {eng_thing}|chasing a heisenbug in {eng_thing}"""),
    "sre_thing": _p("""the disk alerts on the batch hosts|the certificate renewal job|the noisy latency
        alert|our error budget for the quarter|the backup restore drill|the pager rotation for the
        holidays|the load balancer health checks|capacity for the spring peak|the log retention
        settings|the DNS failover runbook|the canary analysis|the Kubernetes node upgrade|the alert that
        fires every night at two|the synthetic probes|the secrets rotation|the cost report for compute|
        the chaos experiment next week|the status page wording|the on-call handover notes"""),
    "sre_ask": _p("""anyone mind if I silence {sre_thing} while I tune it?|who's covering the pager on
        Friday?|has anyone looked at {sre_thing}?|can I get a second pair of eyes on {sre_thing}?|should
        {sre_thing} page or just ticket?|any volunteers for {sre_thing}?"""),
    "sre_update": _p("""tuning {sre_thing}|reviewing {sre_thing}|handing over {sre_thing} to the next
        shift|writing up {sre_thing}|automating {sre_thing}"""),
    "support_thing": _p("""the queue after the weekend|the macro for warranty questions|a customer who
        wants a replacement before the diagnosis|the backlog of password resets|the survey scores|the
        knowledge base article on firmware|the shipping delays for replacement units|callbacks for
        the strategic accounts|the new escalation form|the holiday cover rota|the long call about a
        billing dispute|the training deck for new starters|the chat widget being slow|the customer who
        sent photos of a smoking power supply|the tone of our canned replies|the courier who lost a
        parcel|the spare parts inventory"""),
    "support_ask": _p("""has anyone handled {support_thing} before?|who can cover my calls between two
        and three?|is there a template for {support_thing}?|should I escalate {support_thing} or wait a
        day?|does the RMA form still need a photo of the label?|can someone sanity check my reply about
        {support_thing}?"""),
    "support_update": _p("""working through {support_thing}|on the phones most of the morning|clearing
        {support_thing}|updating {support_thing}|shadowing a colleague on {support_thing}"""),
    "sales_thing": _p("""the renewal with the logistics customer|the quote for a fleet of appliances|our
        pipeline review|the discount approval for a three-year deal|the demo unit that never came back|
        the trade show booth|the pricing sheet for the new model|the forecast for next quarter|a prospect
        asking about data residency|the reseller agreement|the commission statement|a customer reference
        call|the lost deal post-mortem|the territory split|the proposal deck"""),
    "sales_ask": _p("""who can join a call about {sales_thing} on Thursday?|is {sales_thing} still
        waiting on finance?|can someone send me the latest version of {sales_thing}?|do we have a case
        study for {sales_thing}?|any tips for {sales_thing}?"""),
    "sales_update": _p("""chasing {sales_thing}|prepping {sales_thing}|following up on {sales_thing}|
        negotiating {sales_thing}|closing out {sales_thing}"""),
    "legal_thing": _p("""the master services agreement redline|the data processing addendum|a
        liability cap the customer keeps striking|the export control question|our privacy notice update|
        the trademark renewal|an indemnity clause|the subprocessor list|the supplier contract|a records
        retention request|the warranty terms in the new contract template|a subpoena that turned out to
        be spam|the open-source licence review|the insurance certificate"""),
    "legal_ask": _p("""can someone confirm who signs off {legal_thing}?|has finance seen {legal_thing}?|
        do we have precedent for {legal_thing}?|who asked for {legal_thing}?"""),
    "legal_update": _p("""reviewing {legal_thing}|redlining {legal_thing}|negotiating {legal_thing}|
        filing {legal_thing}"""),
    "hr_thing": _p("""the benefits enrolment window|the engagement survey|interview loops for the open
        roles|the new parental leave policy|performance review calibration|the onboarding checklist|
        payroll cut-off|the wellbeing budget|the referral bonus|the office move logistics|the mentoring
        scheme|training budgets|the handbook refresh|exit interviews|the summer party"""),
    "hr_ask": _p("""could managers send me their notes on {hr_thing}?|has everyone seen the email about
        {hr_thing}?|who wants to help with {hr_thing}?|any feedback on {hr_thing} before Friday?"""),
    "hr_update": _p("""scheduling {hr_thing}|collecting feedback on {hr_thing}|finalising {hr_thing}|
        answering questions about {hr_thing}"""),
    "lead_thing": _p("""the board pack|next year's headcount plan|the quarterly business review|the
        offsite agenda|the budget reforecast|the pricing strategy|the hiring freeze question|the customer
        advisory council|our goals for the half|the reorganisation of support tiers|the vendor
        consolidation|the investor update|the all-hands slides"""),
    "lead_ask": _p("""can I get your numbers for {lead_thing} by Wednesday?|thoughts on {lead_thing}?|who
        should present {lead_thing}?|are we aligned on {lead_thing}?"""),
    "lead_update": _p("""drafting {lead_thing}|reviewing {lead_thing}|meeting finance about {lead_thing}|
        revising {lead_thing}"""),
}

#: Answers to a question, by group; the question itself is quoted by the composer.
ANSWERS = {
    "eng": _p("""[Sure|Yep|On it], [I'll take a look|looking now|give me ten minutes]|[Left a few comments|
        Approved with nits|Requested changes, mostly naming]|[I think|Pretty sure] that was a workaround for
        an old driver bug, [check the blame|there's a comment somewhere]|[Not just you|Same here], CI has
        been [crawling|queued for ages] since lunch|[No objections|Fine by me], as long as the flag defaults
        off|[Platform owns it now|I think the payments squad took it over], ask in their channel"""),
    "sre": _p("""[Go ahead|Fine], just note it in the handover|I can cover [Friday|the evening|the
        weekend]|[Looked|Had a look], it's [a threshold issue|the probe itself|real, but minor]|[Ticket
        it|It should page], [we agreed that last quarter|it's customer facing]"""),
    "support": _p("""[Yes|Yep], [use the warranty macro|there's a template in the knowledge base|check the
        pinned message]|I can cover [two to three|your calls|the afternoon]|[Escalate it|Give it a day],
        [the customer is strategic|the diagnosis isn't back yet]|[Still needs the photo|Not any more, the
        serial is enough]|[Looks good|Soften the second paragraph a bit], [otherwise send it|nice one]"""),
    "sales": _p("""[I can join|Count me in], [send the invite|what time?]|[Still with finance|Approved this
        morning]|[Sent it over|It's in the shared drive]|[We have one|Marketing has a draft one], [I'll
        forward it|ask them]"""),
    "legal": _p("""[The general counsel signs|It needs two signatures], [as usual|above the threshold]|
        [Finance has it|Not yet, I'll chase]|[We have precedent|Nothing quite like it], [I'll dig it out|
        let's talk]"""),
    "hr": _p("""[Sent mine|Will send by Thursday]|[Seen it|Yes], [thanks|looks clear]|[Happy to help|Count
        me in]|[One comment|A couple of notes], [sending now|in the doc]"""),
    "lead": _p("""[Numbers coming|Will have them Tuesday]|[Broadly supportive|Some concerns], [let's
        discuss on Thursday|notes in the doc]|[You should|Let's ask the team lead to present]|[Aligned|Mostly
        aligned], [one open question on timing|pending the budget]"""),
}
