#include "command_line.hpp"

#include <cstdio>
#include <exception>
#include <sstream>
#include <string>

#include "command_line_suggestions.hpp"
#include "hetsched/backend/scheduling_loop.hpp"
#include "hetsched/core/input_error.hpp"
#include "hetsched/service/cluster_engine.hpp"

namespace hetsched::cli {

int run_command_line(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    const std::string suggestion = suggestion_for_command_line(app, argc, argv);
    std::fprintf(stderr, "hetsched: error: %s\n",
                 suggestion.empty() ? e.what() : suggestion.c_str());
    return 2;
  } catch (const hetsched::InputError& e) {
    std::fprintf(stderr, "hetsched: error: %s\n", e.what());
    return 2;
  } catch (const hetsched::PolicyError& e) {
    std::fprintf(stderr, "hetsched: internal error: %s\n", e.what());
    return 3;
  } catch (const hetsched::EngineError& e) {
    // An engine's message may quote a command's stderr: its lines joined into one.
    std::string joined;
    std::istringstream lines(e.what());
    for (std::string line; std::getline(lines, line);)
      if (!line.empty()) joined += (joined.empty() ? "" : " / ") + line;
    std::fprintf(stderr, "hetsched: error: %s\n", hetsched::printable_text(joined).c_str());
    return 2;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "hetsched: error: out of memory\n");
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "hetsched: internal error: %s\n", e.what());
    return 1;
  } catch (...) {
    std::fprintf(stderr, "hetsched: internal error: an exception of unknown type\n");
    return 1;
  }
  return 0;
}

}  // namespace hetsched::cli
