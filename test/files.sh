#!/bin/sh
# The test files as `npm test` runs them, two at a time: the longest first, so that none of them
# starts last and runs alone at the end; the rest in name order. Of the first two, only one asks
# for the corpus's store (test/corpus-store.ts): the other runs while it is built. (Three at a
# time took under 2 % off on two cores: not worth the risk to the timing-bound tests.)
first="test/consumers/ready-queries.test.ts
test/consumers/exports.test.ts
test/store/kill.test.ts
test/client/resident.test.ts
test/validate/fixtures.test.ts
test/store/remote-corpus.test.ts
test/store/remote-commands.test.ts
test/server/conversation.test.ts
test/model/corpus.test.ts
test/server/cli.test.ts
test/store/souls.test.ts
test/server/outage.test.ts
test/usage/corpus.test.ts
test/recoverable.test.ts
test/corpus.test.ts
test/store/remote-bulk.test.ts
test/server/screens.test.ts
test/mcp/mcp.test.ts"
echo "$first"
find test -name '*.test.ts' | sort | grep -vxF "$first"
