// The commands a build of `weft check` runs, as clang's driver plans them (`clang -###`), kept so
// that a later build runs them itself. On Debian's clang a compile-and-link is three processes
// (the driver, `clang -cc1`, the linker), each of which spends about 0.07 s loading clang's
// libraries before it does anything (docs/performance.md, "The fixed cost of a small run"); with
// the plan kept, the driver is not one of them.
//
// A plan is kept as a template: the build's scratch directory, its temporary objects, the program
// and the source are written as placeholders, so that the plan made for one source serves the
// next build of any source of the same kind with the same flags, in the same directory and with
// the same compiler (build_cache.hpp names it by all of that).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace weft::driver {

/// The commands of a build, in order; each is a program and its arguments.
struct BuildPlan {
  std::vector<std::vector<std::string>> commands;
};

/// What a plan's template is written for and filled in with.
struct PlanPaths {
  std::string dir;      ///< the build's scratch directory, unique to it
  std::string source;   ///< the source as given to the compiler
  std::string program;  ///< the program the build makes: `dir`/stem of the source
};

/// `plan` as text (one command a line, its arguments apart by a control character), as
/// weft-build reads it; nothing when an argument holds a line break or that character.
std::optional<std::string> plan_text(const BuildPlan& plan);

/// The plan `plan_text` wrote; nothing when `text` is not one.
std::optional<BuildPlan> read_plan(const std::string& text);

/// The commands in what `clang -###` writes on standard error (each on a line of its own, every
/// argument in double quotes with `"`, `\` and `$` escaped), or nothing when it holds none or
/// cannot be read.
std::optional<BuildPlan> parse_driver_plan(const std::string& text);

/// `plan` as a template for `paths`, or nothing when the plan has a shape weft does not run
/// itself: anything but `clang -cc1` compiles to temporary objects followed by one link, or a
/// source, program or directory named in an argument in a way a template cannot capture.
std::optional<std::string> plan_template(const BuildPlan& plan, const PlanPaths& paths);

/// The template filled in for `paths`; nothing when `text` is not a template.
std::optional<BuildPlan> fill_plan(const std::string& text, const PlanPaths& paths);

}  // namespace weft::driver
