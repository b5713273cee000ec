#!/bin/sh
# The test files as `npm test` runs them, two at a time: the longest first, so that none of them
# starts last and runs alone at the end; the rest in name order. The first asks for the corpus's
# store (test/corpus-store.ts), which the second does not: it runs while the store is built.
first="test/consumers/ready-queries.test.ts
test/store/kill.test.ts
test/validate/fixtures.test.ts
test/store/remote-corpus.test.ts
test/client/resident.test.ts
test/model/corpus.test.ts
test/consumers/exports.test.ts
test/server/outage.test.ts
test/usage/corpus.test.ts
test/recoverable.test.ts
test/corpus.test.ts
test/store/remote-bulk.test.ts"
echo "$first"
find test -name '*.test.ts' | sort | grep -vxF "$first"
