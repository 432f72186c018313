// hetsched's library in one include: what a program that uses hetsched needs to load a
// cluster and a workload, choose a policy by name, and run the work in the twin, on local
// workers or through the service. The rest of include/hetsched/ belongs to the modules
// (docs/architecture.md) and may change between versions.
//
//   const hetsched::Cluster cluster = hetsched::load_cluster_file("cluster.yaml");
//   const hetsched::Workload workload = hetsched::load_workload_file("workload.yaml", cluster);
//   const hetsched::RooflineModel perf(cluster);
//   auto policy = hetsched::make_policy("heft", {});
//   hetsched::Simulator twin(cluster, workload, perf, *policy);
//   const hetsched::RunReport report = twin.run();
#pragma once

#include "hetsched/backend/run_report.hpp"        // RunReport: what a run produced
#include "hetsched/cluster/cluster.hpp"           // Cluster, Node, Device
#include "hetsched/cluster/default_cluster.hpp"   // the built-in cluster
#include "hetsched/core/input_error.hpp"          // InputError: bad input, with its position
#include "hetsched/io/cluster_file.hpp"           // load_cluster_file
#include "hetsched/io/report_writer.hpp"          // reports as text, JSON, CSV, Chrome trace
#include "hetsched/io/runtime_dag_file.hpp"       // load_runtime_dag_file (local runs)
#include "hetsched/io/workload_file.hpp"          // load_workload_file
#include "hetsched/perf/roofline_model.hpp"       // RooflineModel: the default PerfModel
#include "hetsched/registry/policy_registry.hpp"  // make_policy, policy_names
#include "hetsched/runtime/local_backend.hpp"     // LocalBackend: run on this machine
#include "hetsched/service/control_plane.hpp"     // ControlPlane: the service's brain
#include "hetsched/sim/simulator.hpp"             // Simulator: the digital twin
#include "hetsched/workload/workload.hpp"         // Workload, Job, Task
