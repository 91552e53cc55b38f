"""Mutation cases for the assurance study: the independent helper's (kit, edits, cases, runner) and issue 15's.

The study is run through ``judges.assurance.mutation_study``; the package exports no names of its own.
"""

__all__: list[str] = []
