# A standalone Spark cluster on this machine (master + 2 workers, 1 core and
# 1 GiB each, bound to 127.0.0.1) for the Spark engine's tests and benchmark.
# State (pid files, logs, scratch) under .spark-cluster/; stopped by those pids.

SPARK_CLUSTER_DIR ?= .spark-cluster

.PHONY: spark-cluster-up spark-cluster-down

spark-cluster-up: setup
	$(BIN)/python mk/spark_cluster.py up --dir $(SPARK_CLUSTER_DIR)

spark-cluster-down:
	$(BIN)/python mk/spark_cluster.py down --dir $(SPARK_CLUSTER_DIR)
