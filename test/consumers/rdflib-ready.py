"""Loads a Weave export into an rdflib Dataset and runs queries on it: prints
{"seconds": LOAD_SECONDS, "answers": [{"rows": [{var: [kind, value, datatype]}, ...], "seconds": S} or {"error": "...", "seconds": S}, ...]}.

usage: rdflib-ready.py FILE FORMAT GRAPH [QUERY_FILE ...]
A ConjunctiveGraph, whose default graph is the union of its graphs, as Weave's is. A syntax
without graphs (turtle) is parsed into the graph named GRAPH, so GRAPH ?g patterns find it;
GRAPH is "-" for dataset syntaxes (trig). A query rdflib fails on is reported, not raised.
"""
import json
import sys
import time

import rdflib

path, fmt, name, *queries = sys.argv[1:]
graph = rdflib.ConjunctiveGraph()
started = time.monotonic()
(graph if name == "-" else graph.get_context(rdflib.URIRef(name))).parse(path, format=fmt)
seconds = time.monotonic() - started


def cell(term):
    if isinstance(term, rdflib.BNode):
        return ["bnode", str(term), None]
    if isinstance(term, rdflib.Literal):
        return ["literal", str(term), None if term.datatype is None else str(term.datatype)]
    return ["uri", str(term), None]


answers = []
for query_file in queries:
    with open(query_file, encoding="utf-8") as f:
        text = f.read()
    started = time.monotonic()
    try:
        result = graph.query(text)
        names = [str(v) for v in result.vars]
        answers.append({"rows": [{n: cell(v) for n, v in zip(names, row) if v is not None} for row in result]})
    except Exception as e:  # noqa: BLE001 - the test lists what rdflib cannot run
        answers.append({"error": f"{type(e).__name__}: {e}"[:300]})
    answers[-1]["seconds"] = time.monotonic() - started
print(json.dumps({"seconds": seconds, "answers": answers}))
