#include "hetsched/stream/gang_placement.hpp"

#include <algorithm>
#include <map>

namespace hetsched {

std::optional<GangPlacement> place_gang(std::span<const GangNodeRoom> candidates, int gang,
                                        GangSpread spread) {
  if (gang <= 0) return std::nullopt;
  const GangNodeRoom* best = nullptr;
  for (const GangNodeRoom& room : candidates)
    if (room.free >= gang && (best == nullptr || room.free < best->free)) best = &room;
  if (best != nullptr) return GangPlacement{{best->node, gang}};
  if (spread == GangSpread::one_node) return std::nullopt;
  int total = 0;
  std::map<int, int> rack_free;
  for (const GangNodeRoom& room : candidates) {
    rack_free[room.rack] += room.free;
    total += room.free;
  }
  if (total < gang) return std::nullopt;
  int best_rack = -1;
  for (const auto& [rack, free] : rack_free)
    if (free >= gang && (best_rack < 0 || free < rack_free[best_rack])) best_rack = rack;
  std::vector<const GangNodeRoom*> order;
  for (const GangNodeRoom& room : candidates)
    if (room.free > 0 && (best_rack < 0 || room.rack == best_rack)) order.push_back(&room);
  std::stable_sort(order.begin(), order.end(),
                   [](const GangNodeRoom* a, const GangNodeRoom* b) { return a->free > b->free; });
  GangPlacement placement;
  int left = gang;
  for (const GangNodeRoom* room : order) {
    const int taken = std::min(left, room->free);
    placement.emplace_back(room->node, taken);
    left -= taken;
    if (left == 0) break;
  }
  return placement;
}

}  // namespace hetsched
