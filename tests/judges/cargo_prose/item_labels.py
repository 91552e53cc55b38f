"""The label layout shared by the held-out prose sets (items_heldout3/4.jsonl): what a judge is shown, the label
fields beside it, and the kinds, runbooks and layouts a label may name. Each set's format test adds its own styles
and value tokens."""

SHOWN = ("item_id", "question", "live_context", "reference", "candidate")
LABELS = ("family", "should_penalize", "kind", "style", "author", "why", "procedure_id", "condition",
          "context_format", "reference_format", "reference_revision", "case_state")
OPTIONAL = ("changes", "perturbation", "extras")
P2_KINDS = {"status", "id", "version", "date", "amount", "entitlement", "contract", "email", "derived"}
P4_KINDS = {"skip": "skip_step", "order": "swap_steps", "action": "wrong_action", "escalation": "wrong_escalation"}
RUNBOOKS = {"RB-BILLING-CREDIT", "RB-BATTERY", "RB-FW-ROLLBACK", "RB-DATA-RECOVERY", "RB-ADV-EXCHANGE", "RB-ONSITE-DISPATCH"}
CONTEXT_FORMATS = {"gen", "table", "kv", "crm", "email"}
REFERENCE_FORMATS = {"gen", "prose", "bullets", "lettered", "arrowed"}
WORDS = ["no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"]
