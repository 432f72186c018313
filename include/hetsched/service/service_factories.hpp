// Building the parts of `hetsched serve` from the command line's words:
//   --state sqlite:PATH                 (the engines' etcd://host:port,... joins here)
//   --engine sim | sim:CLUSTER_FILE     (the engines' slurm joins here)
// and the bearer token: read from a file, or generated once into the state directory.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "hetsched/cluster/cluster.hpp"
#include "hetsched/service/cluster_engine.hpp"
#include "hetsched/service/state_store.hpp"

namespace hetsched {

// The store the URL names; throws InputError naming the closest valid schemes when the
// scheme is unknown, StateStoreError when it cannot be opened.
std::unique_ptr<StateStore> open_state_store(std::string_view url);
// The valid scheme words, for messages ("sqlite").
const std::vector<std::string>& state_store_schemes();

struct EngineSpecOptions {
  double time_scale = 1.0;  // SimulatedEngine: simulated seconds per real second
};
// The engine the spec names; throws InputError (unknown engine with the closest names,
// bad cluster file).
std::unique_ptr<ClusterEngine> open_cluster_engine(std::string_view spec,
                                                   const EngineSpecOptions& options);
const std::vector<std::string>& cluster_engine_names();

// The directory holding the state the URL names (for the generated token file):
// sqlite:PATH -> PATH's directory.
std::string state_directory(std::string_view state_url);

// The bearer token: the first line of `token_file` when given (InputError when it is
// unreadable or empty), else `<state_dir>/token`, generated on first start from 32
// bytes of /dev/urandom (hex) and written with mode 0600. `used_path` gets the file.
std::string load_or_create_token(const std::string& token_file, const std::string& state_dir,
                                 std::string* used_path = nullptr);

}  // namespace hetsched
