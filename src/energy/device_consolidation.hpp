// Device consolidation: run a job on fewer devices when that costs no more than the
// makespan bound allows, so the devices it leaves unused can be released or powered
// down (JobEnergyModel::set_release_unused_devices) — the consolidation step of
// energy-aware cluster schedulers (e.g. the VM consolidation of Beloglazov & Buyya,
// applied to one DAG: fewer devices on, each busier).
//
// Devices are ranked by how much energy the whole job would cost on each alone at
// full speed (its tasks' joules there, idle power included; devices that cannot run
// every task last). For nested subsets of the k best-ranked devices (every k up to
// 16 devices, then k shrinking by about a tenth each step), the insertion-EFT list
// schedule is built on the subset; subsets whose schedule ends within the bound are
// candidates, and the one with least energy at full speed (on the full model, so a
// released device is charged nothing only if the model says so) is then handed to
// minimise_energy_within_bound (re-mapping within the subset and DVFS). The search
// stops when two subsets in a row end later than the bound.
#pragma once

#include <optional>

#include "hetsched/energy/energy_remapping.hpp"

namespace hetsched {

struct ConsolidationResult {
  EnergyRemapResult remap;        // the plan on the chosen subset, evaluated on the full model
  std::size_t devices_used = 0;   // by the chosen subset's schedule
  std::size_t subsets_tried = 0;  // insertion-EFT schedules built
};

// The least-energy plan on a proper subset of the devices within the bound, or
// nothing when no proper subset's schedule ends within it.
std::optional<ConsolidationResult> consolidate_devices(const JobEnergyModel& model,
                                                       double makespan_bound_seconds);

}  // namespace hetsched
