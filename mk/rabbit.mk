# A local 3-node RabbitMQ cluster (Debian's rabbitmq-server) for the RabbitMQ
# conformance driver, by hand: free ports on 127.0.0.1 (or RABBIT_BASE_PORT+1..3
# when set; the ports are printed and kept in .rabbit-cluster/cluster), nodes
# rabbitN-mk@localhost, data and logs under .rabbit-cluster/ (docs/conformance.md).
# The cluster code is the harness's own (modelcheck/conform/examples/rabbitmq_cluster.py).

RABBIT_CLUSTER_DIR ?= .rabbit-cluster

.PHONY: rabbit-cluster-up rabbit-cluster-down

rabbit-cluster-up: setup
	$(BIN)/python mk/rabbit_cluster.py up 3 $(RABBIT_CLUSTER_DIR)

rabbit-cluster-down:
	$(BIN)/python mk/rabbit_cluster.py down $(RABBIT_CLUSTER_DIR)

# The specs against a real cluster, outside the test run (hours at 50 walks
# a row): random walks of every HOLDS row of both specs, and replays of the
# counterexamples a driver can cause (bench/conform_rabbitmq.py).
RUNS ?= 50
DEPTH ?= 6
RABBIT_CONFORM_OUT ?= .rabbit-cluster/conform

.PHONY: rabbit-conform-walks rabbit-conform-replays

rabbit-conform-walks: setup
	$(BIN)/python bench/conform_rabbitmq.py walks --runs $(RUNS) --depth $(DEPTH) \
	    --out $(RABBIT_CONFORM_OUT) --json $(RABBIT_CONFORM_OUT)/walks.json

rabbit-conform-replays: setup
	$(BIN)/python bench/conform_rabbitmq.py replays \
	    --out $(RABBIT_CONFORM_OUT) --json $(RABBIT_CONFORM_OUT)/replays.json
