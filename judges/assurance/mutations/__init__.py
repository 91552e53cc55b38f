"""Mutation cases for the assurance study: the independent helper's (kit, edits, cases, runner) and issue 15's."""
