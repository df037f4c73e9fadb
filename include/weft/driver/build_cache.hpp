// The programs `weft check` has built, kept so that checking a program again skips the compiler
// and the linker: on Debian's clang each LLVM process spends about 0.09 s relocating its shared
// libraries before it does anything, and a build takes three (docs/performance.md, "The fixed cost
// of a run").
//
// An entry is named by the build's description (the files weft's compiler wrapper builds with,
// the flags, the source's path, the working directory, the environment variables compilers read)
// and used only if every file the build read still holds what it held: the source, the headers
// the compiler listed in its dependency file, and files named among the flags. A build whose
// inputs weft cannot list (a library found on a search path, a response file) is not kept.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace weft::driver {

/// What a build is made of apart from the files it reads: compared exactly when an entry is found.
struct BuildDescription {
  std::string text;
};

/// A kept build: its program, and what the compiler printed while building it.
struct KeptBuild {
  std::filesystem::path program;
  std::string diagnostics;
};

class BuildCache {
 public:
  /// The cache in $WEFT_BUILD_CACHE, else $XDG_CACHE_HOME/weft/builds, else
  /// $HOME/.cache/weft/builds; none when no such directory can be named. The directory is created
  /// when a build is first kept.
  static std::optional<BuildCache> open();

  explicit BuildCache(std::filesystem::path dir) : dir_(std::move(dir)) {}

  /// The kept build of `description` whose files are all unchanged, if any.
  std::optional<KeptBuild> find(const BuildDescription& description) const;

  /// Keeps `program` (copied) as the build of `description` that read `files`. Returns an error
  /// message when the cache cannot be written; the build itself is unaffected.
  std::optional<std::string> keep(const BuildDescription& description,
                                  const std::vector<std::string>& files,
                                  const std::filesystem::path& program,
                                  const std::string& diagnostics) const;

  /// The build plan (build_plan.hpp) kept for `key`, if any.
  std::optional<std::string> find_plan(const BuildDescription& key) const;

  /// Keeps `plan` for `key`; a plan that cannot be written is not kept, and nothing else happens.
  void keep_plan(const BuildDescription& key, const std::string& plan) const;

  const std::filesystem::path& dir() const { return dir_; }

  /// Entries beyond this many are removed, least recently used first; plans likewise.
  static constexpr std::size_t kMaxEntries = 64;

 private:
  std::filesystem::path dir_;
};

/// Why a build with these compiler flags cannot be kept (it reads files weft cannot list), or
/// nothing when it can.
std::optional<std::string> uncacheable_flags(const std::vector<std::string>& flags);

/// The files named among the flags (objects, archives, `-fsanitize-ignorelist=FILE`, ...): a
/// flag, or the part after its '=', that names an existing regular file.
std::vector<std::string> files_named_in_flags(const std::vector<std::string>& flags);

/// The prerequisites of a make-style dependency file such as `clang -MD -MF FILE` writes
/// (backslash-newline continuations, "\ " for a space in a name).
std::vector<std::string> dependency_file_prerequisites(const std::string& text);

/// A file's bytes, or nothing when it cannot be read.
std::optional<std::string> read_whole_file(const std::filesystem::path& path);

/// `path`'s size and mtime, as one word: what a wrapper's input is compared by.
std::string file_stamp(const std::filesystem::path& path);

}  // namespace weft::driver
