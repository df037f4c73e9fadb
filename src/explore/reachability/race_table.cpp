// Lei and Carver, §VI-B: the race table, by counting in a number system whose digit i has base
// |race_set(r_i)| + 1, most significant on the left, with -1 for a removed event.
#include "weft/explore/race_table.hpp"

namespace weft::explorer {
namespace {

// Rule 3: the new partner s of column i (the t[i]-th of its race set) must not be removed by
// another change, i.e. no column j with t[j] > 0 has r_j in c-struct(s).
bool new_partner_kept(const RaceTableInput& in, const RaceVariantRow& t, std::size_t i) {
  for (std::size_t j = 0; j < t.size(); ++j)
    if (t[j] > 0 && in.receive_controls_send(j, i, static_cast<std::size_t>(t[i]))) return false;
  return true;
}

}  // namespace

std::vector<RaceVariantRow> construct_race_table(const RaceTableInput& in) {
  const std::size_t n = in.race_set_sizes.size();
  std::vector<RaceVariantRow> rows;
  RaceVariantRow t(n, 0);
  const auto top = [&](std::size_t i) { return static_cast<int>(in.race_set_sizes[i]); };
  for (;;) {
    // The least significant digit that can still grow (neither at its top nor removed).
    std::size_t i = n;
    for (std::size_t k = n; k-- > 0;)
      if (t[k] < top(k) && t[k] != -1) {
        i = k;
        break;
      }
    if (i == n) break;
    ++t[i];
    if (t[i] == 1)  // r_i's partner now changes: the events it controls go
      for (std::size_t j = i + 1; j < n; ++j)
        if (t[j] != -1 && in.receive_controls_receive(i, j)) t[j] = -1;
    for (std::size_t j = i + 1; j < n; ++j) {
      if (t[j] != top(j)) continue;
      t[j] = 0;  // back to its own partner: what only it removed comes back
      for (std::size_t k = j + 1; k < n; ++k) {
        if (t[k] != -1 || !in.receive_controls_receive(j, k)) continue;
        bool still_removed = false;
        for (std::size_t l = 0; l < k && !still_removed; ++l)
          still_removed = t[l] > 0 && in.receive_controls_receive(l, k);
        if (!still_removed) t[k] = 0;
      }
    }
    // Fig. 7 checks only r_i's new partner (line 23). A column right of i may control the new
    // partner of a column left of it when the heading's order of concurrent receives puts it
    // there, so every changed column is checked (tests/race_table_test.cpp, the random shapes).
    bool valid = true;
    for (std::size_t k = 0; k < n && valid; ++k)
      if (t[k] > 0) valid = new_partner_kept(in, t, k);
    if (valid) rows.push_back(t);
  }
  return rows;
}

std::vector<RaceVariantRow> naive_race_table(const RaceTableInput& in) {
  const std::size_t n = in.race_set_sizes.size();
  std::vector<RaceVariantRow> rows;
  RaceVariantRow t(n, -1);
  for (;;) {
    // Rule 1: some partner changes. Rule 2: an event is removed exactly when a change controls
    // it. Rule 3: no changed partner is removed.
    bool valid = false;
    for (int v : t) valid |= v > 0;
    for (std::size_t i = 0; i < n && valid; ++i) {
      bool controlled = false;
      for (std::size_t j = 0; j < n; ++j)
        controlled |= j != i && t[j] > 0 && j < i && in.receive_controls_receive(j, i);
      valid = (t[i] == -1) == controlled;
    }
    for (std::size_t i = 0; i < n && valid; ++i)
      if (t[i] > 0) valid = new_partner_kept(in, t, i);
    if (valid) rows.push_back(t);
    // The next tuple of the product of {-1, 0, 1, ..., |race_set|}.
    std::size_t k = n;
    while (k-- > 0) {
      if (t[k] < static_cast<int>(in.race_set_sizes[k])) {
        ++t[k];
        break;
      }
      t[k] = -1;
    }
    if (k == static_cast<std::size_t>(-1)) break;
  }
  return rows;
}

}  // namespace weft::explorer
