# A local 3-node RabbitMQ cluster (Debian's rabbitmq-server) for the RabbitMQ
# conformance driver, by hand: AMQP on 127.0.0.1:25001-25003, nodes
# rabbitN-mk@localhost, data and logs under .rabbit-cluster/ (docs/conformance.md).

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
