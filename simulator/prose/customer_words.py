"""Grammar pools for customer-facing mail: how a customer contact writes in each register, and how support answers.

Pools are named ``cust_<part>_<register>`` (a customer: terse, formal, upset,
chatty) and ``sup_<part>`` (support staff writing to a customer). They join
the shared grammar (``simulator.prose.voice``), so a pack's ``[wording.pools]``
may replace any of them and ``{=unit}``-style domain words apply. No rule
states a fact: callers add fact values after expansion, so a typo never lands
inside one.
"""

from __future__ import annotations


#: The registers a customer contact writes in (each contact keeps one: ``simulator.prose.customer_mail``).
REGISTERS = ("terse", "formal", "upset", "chatty")

CUSTOMER_POOLS: dict[str, list[str]] = {
    "cust_greet_terse": ["[Hi|Hello|Support|Hi support|]"],
    "cust_greet_formal": ["[Dear Support team,|Dear Sir or Madam,|Good morning,|Good afternoon,|To the support "
                          "team,|Dear colleagues,]"],
    "cust_greet_upset": ["[Hello,|Support team,|Hi,|To whom it may concern,|]"],
    "cust_greet_chatty": ["[Hi there!|Hello support folks,|Hi all,|Hey there,|Morning!|Hi hi,|Hello lovely "
                          "support people,]"],
    "cust_open_terse": ["", "[Problem here:|Issue:|FYI:|Reporting this:]"],
    "cust_open_formal": ["[I am writing to report that|We would like to report that|Please be advised that|I "
                         "wish to inform you that|We have noticed that|It has come to our attention that]"],
    "cust_open_upset": ["[This is not acceptable:|We are losing patience here —|Again,|Once more,|For the "
                        "[second|third] time this [week|month],|Frankly, this is getting ridiculous:|I need "
                        "this sorted today:]"],
    "cust_open_chatty": ["[Hope you're well! Bit of a problem on our end:|So, not the news you want on a "
                         "[Monday|Tuesday|Wednesday|Thursday|Friday], but|Quick one from us —|Right, so|I'll keep this short(ish):|Hello again, "
                         "sorry to bother you, but]"],
    "cust_more_terse": ["", "[Started {symptom_when}.|Tried a restart, no change.|Same on every try.]"],
    "cust_more_formal": ["[The issue was first observed {symptom_when}.|Our staff have already attempted a "
                         "restart, without success.|We have not changed anything on our side.|For context, "
                         "{customer_story}.]"],
    "cust_more_upset": ["[We have already restarted it twice.|Nobody here can work like this.|Our customers are "
                        "noticing.|This {=unit} was supposed to be reliable.|We pay for support precisely to "
                        "avoid this.|It started {symptom_when} and has not stopped.]"],
    "cust_more_chatty": ["[For context, {customer_story}.|It started {symptom_when}, and now the {=unit} is "
                         "{symptom_detail} too.|My colleague swears it's {symptom_detail}, but I can't hear it "
                         "over the {noise}.|Background: {customer_story}.]"],
    "noise": ["[coffee machine|radio|printer|builders next door|lunch crowd|phones|air conditioning]"],
    "cust_facts_terse": ["[Details:|Info:|Ref:|]"],
    "cust_facts_formal": ["[For your records:|The relevant details are as follows:|Please find the details "
                          "below:|For reference:]"],
    "cust_facts_upset": ["[Details, again:|Here are the details (again):|You should have these already:|"
                         "Details:]"],
    "cust_facts_chatty": ["[In case it helps:|Details, in case you need them:|Everything I could find:|The "
                          "boring bits:]"],
    "cust_ask_terse": ["[Please advise.|Please fix.|Thanks.|Call me if needed.|Need a fix.|Advise asap.]"],
    "cust_ask_formal": ["[Could you please advise on next steps?|We would be grateful for a prompt response.|"
                        "Kindly let us know how to proceed.|We look forward to your reply.|Please confirm "
                        "receipt of this message.]"],
    "cust_ask_upset": ["[We need this fixed today.|Please escalate this.|I expect a call back within the hour.|"
                       "This is affecting our whole team.|If this is not resolved soon we will be reviewing our "
                       "contract.|Please do not send me another automated reply.]"],
    "cust_ask_chatty": ["[Any ideas? Thanks so much!|Let me know if you need anything else from me.|Happy to "
                        "jump on a call if that's easier.|Fingers crossed it's something simple!|Thanks a million "
                        "in advance :)]"],
    "cust_ref": ["[The portal gave us reference|Our reference is|Ticket number from the portal:|Portal "
                 "reference:|The case number we got is]"],
    "cust_sign_terse": ["[Thanks|Thx|Regards|—|Cheers]"],
    "cust_sign_formal": ["[Kind regards,|Yours faithfully,|Best regards,|With thanks,|Sincerely,]"],
    "cust_sign_upset": ["[Regards,|Waiting for your reply,|Thanks (I hope),|—]"],
    "cust_sign_chatty": ["[Cheers!|Thanks so much,|Many thanks,|Speak soon,|Best,|Ta,]"],
    "cust_reply_terse": ["[Confirmed.|Works now.|Yes, go ahead.|All good.|Fine by us.|OK, confirmed.]"],
    "cust_reply_formal": ["[Thank you for your message. We can confirm that the issue is resolved on our side, "
                          "and you may proceed.|Thank you for the update. I confirm the fix, please go ahead and "
                          "close the case.|Many thanks for following up. Everything is working as expected now.]"],
    "cust_reply_upset": ["[Finally got to this. Yes, it works now, though it took far too long.|It seems to be "
                         "working. I hope it stays that way this time.|Confirmed, but I would like to understand "
                         "why this happened in the first place.|Yes, working. Please make sure this does not "
                         "happen again.]"],
    "cust_reply_chatty": ["[Sorry for the slow reply, it's been {quality} chaos here! Yes, all working now.|"
                          "Brilliant, that did the trick, thank you!|Just tested it and we're back in business. "
                          "You're a star.|Yes! Works a treat. The team says thanks too.]"],
    "cust_delay": ["", "", "[Sorry, I was out of the office.|Apologies, I only saw your email today.|Sorry, this "
                   "got buried in my inbox.|I was waiting for the night shift to test it.]"],
    "sup_greet_warm": ["[Hi <<first>>,|Hello <<first>>,|Hi <<first>>, thanks for bearing with us.|Good "
                       "[morning|afternoon], <<first>>,]"],
    "sup_greet_formal": ["[Dear <<name>>,|Hello <<name>>,|Good [morning|afternoon] <<name>>,]"],
    "sup_open_warm": ["[Thanks for getting in touch about|Thanks for your patience on|A quick update on|"
                      "Following up on your message about|Picking up where we left off on]"],
    "sup_open_formal": ["[I am writing with an update on|Further to your request regarding|With reference to|"
                        "I have reviewed|This is a follow-up on]"],
    "sup_open_sorry": ["[I'm sorry this has taken longer than it should. Here is where we are on|Apologies for "
                       "the trouble with this. An update on|I understand how disruptive this is, so a quick "
                       "update on|Thank you for your patience, and I'm sorry for the delay on]"],
    "sup_did_l1": ["[As promised, we went ahead to|Today's step was to|The next step on our side was to|I was "
                   "able to] <<action>>[, and that is now done|. Done|, which is complete now|]."],
    "sup_did_l2": ["[Having reviewed the case, I made sure to|I have taken this on personally; the step to|Our "
                   "level 2 team stepped in to|After checking the diagnostics, we decided to] <<action>>[, and it "
                   "is done| — that is complete|; done today]."],
    "sup_facts": ["[For your records:|The details:|Please note:|Here is what you need:|Key details:|To "
                  "summarise:]"],
    "sup_next": ["[Reply to this email if anything looks wrong.|Let me know if you have any questions.|If "
                 "anything changes on your side, just reply here.|I'll keep the case open until we hear "
                 "back.|No action is needed from you for now.|Feel free to call us if that's easier.]"],
    "sup_sign": ["[Kind regards,|Best,|Thanks,|Many thanks,|Best wishes,|Regards,|All the best,]"],
}
