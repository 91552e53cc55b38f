"""A toy orgbench plugin: one addition of each kind, each in one module, reached only through entry points.

- ``family``: CARGO family P5, "verbatim reference" (the reference's text given as the answer; penalise);
- ``track``: GroundEval track ``authorship`` ("did PERSON write RECORD?");
- ``export``: export format ``toys-authors`` (a world's records and who wrote them, one CSV);
- ``backend``: ``toys:MODEL``, a judge that fails a candidate equal to the reference.
"""
