# A local 3-node RabbitMQ cluster (Debian's rabbitmq-server) for the RabbitMQ
# conformance driver, by hand: AMQP on 127.0.0.1:25001-25003, nodes
# rabbitN-mk@localhost, data and logs under .rabbit-cluster/ (docs/conformance.md).

RABBIT_CLUSTER_DIR ?= .rabbit-cluster

.PHONY: rabbit-cluster-up rabbit-cluster-down

rabbit-cluster-up: setup
	$(BIN)/python mk/rabbit_cluster.py up 3 $(RABBIT_CLUSTER_DIR)

rabbit-cluster-down:
	$(BIN)/python mk/rabbit_cluster.py down $(RABBIT_CLUSTER_DIR)
