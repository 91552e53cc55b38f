"""Trade vocabulary: what engineers build and break, what customers' units do, what the business negotiates."""

from __future__ import annotations

from simulator.prose.life import _p

JARGON = {
    "tech_adj": _p("""intermittent|nondeterministic|undocumented|deprecated|legacy|brittle|verbose|
        redundant|asynchronous|synchronous|idempotent|recursive|concurrent|distributed|cached|stale|
        orphaned|duplicated|malformed|truncated|unbounded|misconfigured|hardcoded|overloaded|
        throttled|unindexed|encrypted|compressed|serialised|versioned|experimental|temporary"""),
    "tech_noun": _p("""mutex|semaphore|deadlock|race condition|heap dump|stack trace|thread pool|garbage
        collector|memory allocator|file descriptor|socket timeout|handshake|checksum|hash collision|
        bitmask|bloom filter|trie|regex|tokenizer|parser|lexer|compiler flag|linker error|symlink|
        cron job|daemon|sidecar|proxy|reverse proxy|gateway|middleware|interceptor|decorator|
        singleton|factory|adapter|facade|observer|callback|promise|coroutine|generator|iterator|
        cursor|transaction|rollback script|savepoint|foreign key|constraint|trigger|stored procedure|
        materialised view|partition|shard|replica|failover|quorum|heartbeat|lease|watchdog|backoff|
        jitter|payload|envelope|header|cookie|session|token|nonce|certificate chain|keystore|
        manifest|lockfile|changelog|makefile|dockerfile|helm chart|terraform module|feature toggle|
        fixture|snapshot test|benchmark|profiler|flame graph|histogram|percentile|quantile"""),
    "component": _p("""billing module|auth service|search cluster|mobile client|admin console|export
        pipeline|ingest worker|scheduler|notification fanout|reporting warehouse|firmware updater|
        device registry|partner integration|payments adapter|customer portal"""),
    "symptom_detail": _p("""buzzing|clicking|beeping|whirring|rattling|humming|overheating|flickering|
        freezing|stuttering|rebooting|crashing|smoking|sparking|leaking|squealing|grinding|
        vibrating|dimming|blinking|glitching|lagging|hanging|stalling|disconnecting|reconnecting"""),
    "symptom_when": _p("""after lunch|overnight|every few minutes|when the heating comes on|during
        backups|at startup|under load|when it rains|after the firmware update|on Mondays|when the
        fridge kicks in|when two people log in at once|randomly|whenever the printer runs"""),
    "deal_word": _p("""procurement|invoicing|onboarding|renewal|upsell|cross-sell|downgrade|churn|
        retention|forecast|quota|commission|rebate|margin|discount|surcharge|tariff|rebranding|
        sponsorship|partnership|acquisition|merger|divestment|audit|compliance|governance|
        liability|indemnity|arbitration|jurisdiction|confidentiality|exclusivity|termination|
        escrow|subcontracting|outsourcing|tendering|benchmarking|budgeting|reconciliation|
        amortisation|depreciation|payroll|pension|sabbatical|secondment|apprenticeship|
        internship|mentorship|appraisal|grievance|disciplinary|wellbeing|diversity|inclusion"""),
}

JARGON_RULES = {
    "eng": ["[Turns out|Found it:|Root of my week:] {tech_adj} {tech_noun} in the {component}[. Fun.|, of course.|"
            ". Writing it up.|; patch incoming.]",
            "[Reading up on|Refactoring|Deleting] the {tech_adj} {tech_noun} [in|around] the {component}."],
    "sre": ["[Paged twice for|Tuning|Silenced] a {tech_adj} {tech_noun} alert on the {component}[. Again.|, "
            "handover note updated.|.]"],
    "support": ["[Customer says|Caller reports|Another one:] the unit is {symptom_detail} {symptom_when}[, "
                "logging it.|. New one for me.|, {adverb}.]"],
    "sales": ["[Long call about|Deep in|Untangling] {deal_word} [terms|questions|paperwork] for [a prospect|the "
              "renewal|a reseller][.|, {adverb} close.]"],
    "legal": ["[Drafting|Reviewing|Arguing about] the {deal_word} clause [again|for the third time|today][.|, "
              "{adverb}.]"],
    "hr": ["[Updating|Rewriting|Reviewing] the {deal_word} [policy|guidance|FAQ][.| for the handbook.]"],
    "lead": ["[Thinking about|Presenting|Reviewing] our {deal_word} [strategy|numbers|plan] [this week|on "
             "Thursday][.|, {adverb} overdue.]"],
}
