"""Asks a live SPARQL endpoint with the Python clients of the Debian era; prints JSON.

usage: clients.py ENDPOINT CLIENT QUERY
CLIENT: sparqlwrapper-xml (SPARQLWrapper's default: SPARQL XML, parsed with minidom),
        sparqlwrapper-json, sparqlwrapper-rdfxml (a CONSTRUCT, parsed into an rdflib Graph),
        sparqlstore (rdflib's SPARQLStore: XML results parsed by rdflib),
        graphstore (ENDPOINT is a Graph Store, QUERY a graph IRI: the graph read as Turtle by rdflib).
SELECT answers are printed as rows of values; a graph as its number of triples (graphstore: and of rdf:Statements).
"""
import json
import sys
from urllib.parse import quote

import rdflib
from rdflib.plugins.stores.sparqlstore import SPARQLStore
from SPARQLWrapper import JSON, RDFXML, XML, SPARQLWrapper

endpoint, client, query = sys.argv[1:]

if client.startswith("sparqlwrapper"):
    sparql = SPARQLWrapper(endpoint)
    sparql.setQuery(query)
    if client == "sparqlwrapper-json":
        sparql.setReturnFormat(JSON)
        result = sparql.query().convert()
        variables = result["head"]["vars"]
        rows = [[row.get(v, {}).get("value", "") for v in variables] for row in result["results"]["bindings"]]
        print(json.dumps(rows))
    elif client == "sparqlwrapper-xml":
        sparql.setReturnFormat(XML)
        document = sparql.query().convert()
        variables = [v.getAttribute("name") for v in document.getElementsByTagName("variable")]
        rows = []
        for result in document.getElementsByTagName("result"):
            cells = {b.getAttribute("name"): b.firstChild.firstChild.data if b.firstChild.firstChild else "" for b in result.getElementsByTagName("binding")}
            rows.append([cells.get(v, "") for v in variables])
        print(json.dumps(rows))
    elif client == "sparqlwrapper-rdfxml":
        sparql.setReturnFormat(RDFXML)
        graph = sparql.query().convert()
        print(json.dumps(len(graph)))
elif client == "sparqlstore":
    graph = rdflib.Graph(store=SPARQLStore(endpoint))
    print(json.dumps([[("" if v is None else str(v)) for v in row] for row in graph.query(query)]))
elif client == "graphstore":
    graph = rdflib.Graph().parse(f"{endpoint}?graph={quote(query, safe='')}", format="turtle")
    print(json.dumps([len(graph), len(list(graph.subjects(rdflib.RDF.type, rdflib.RDF.Statement)))]))
