"""Loads a Weave export into rdflib and asks it questions: prints {"statements": N, "answers": [[row, ...], ...]}.

usage: rdflib-load.py FILE FORMAT [QUERY_FILE ...]
Dataset syntaxes (nquads, trig, json-ld) go into a ConjunctiveGraph, whose default graph is the
union of its graphs, as Weave's is; the others into a Graph.
"""
import json
import sys

import rdflib

path, fmt, *queries = sys.argv[1:]
graph = rdflib.ConjunctiveGraph() if fmt in ("nquads", "trig", "json-ld") else rdflib.Graph()
graph.parse(path, format=fmt)
answers = []
for query_file in queries:
    with open(query_file, encoding="utf-8") as f:
        result = graph.query(f.read())
    answers.append([[("" if v is None else str(v)) for v in row] for row in result])
# A ConjunctiveGraph's len() counts distinct triples over its graphs; its quads are counted per graph.
statements = sum(len(context) for context in graph.contexts()) if isinstance(graph, rdflib.ConjunctiveGraph) else len(graph)
print(json.dumps({"statements": statements, "answers": answers}))
