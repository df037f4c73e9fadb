#include "weft/driver/build_cache.hpp"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

namespace weft::driver {
namespace fs = std::filesystem;

namespace {

constexpr const char* kFilesHeader = "--- files\n";
constexpr const char* kManifest = "build";
constexpr const char* kDiagnostics = "diagnostics";
constexpr const char* kPlans = "plans";  // a directory of build plans beside the entries
constexpr const char* kPlanHeader = "--- plan\n";

// FNV-1a, 64 bits: names entries and fingerprints files. A collision costs nothing: an entry's
// description is compared in full, and a file is compared by its size too.
class Fnv {
 public:
  void add(const char* data, std::size_t size) {
    for (std::size_t i = 0; i < size; ++i) {
      hash_ ^= static_cast<unsigned char>(data[i]);
      hash_ *= 1099511628211ull;
    }
  }
  std::string hex() const {
    char out[17];
    std::snprintf(out, sizeof out, "%016llx", static_cast<unsigned long long>(hash_));
    return out;
  }

 private:
  std::uint64_t hash_ = 14695981039346656037ull;
};

// "<hash> <size>" of a file's contents, or nothing when it cannot be read.
std::optional<std::string> file_fingerprint(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  Fnv fnv;
  std::array<char, 1 << 16> buffer;
  std::uint64_t size = 0;
  while (in) {
    in.read(buffer.data(), buffer.size());
    const auto got = static_cast<std::size_t>(in.gcount());
    fnv.add(buffer.data(), got);
    size += got;
  }
  if (in.bad()) return std::nullopt;
  return fnv.hex() + " " + std::to_string(size);
}

}  // namespace

std::optional<std::string> read_whole_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

namespace {

bool write_whole(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  return static_cast<bool>(out);
}

std::string name_of(const BuildDescription& description) {
  Fnv fnv;
  fnv.add(description.text.data(), description.text.size());
  return fnv.hex();
}

fs::path entry_dir(const fs::path& dir, const BuildDescription& description) {
  return dir / name_of(description);
}

// Removes the least recently used files of `dir` beyond kMaxEntries.
void evict_plans(const fs::path& dir) {
  std::error_code ec;
  std::vector<std::pair<fs::file_time_type, fs::path>> plans;
  for (const auto& e : fs::directory_iterator(dir, ec))
    plans.emplace_back(fs::last_write_time(e.path(), ec), e.path());
  if (plans.size() <= BuildCache::kMaxEntries) return;
  std::sort(plans.begin(), plans.end());
  for (std::size_t i = 0; i < plans.size() - BuildCache::kMaxEntries; ++i)
    fs::remove(plans[i].second, ec);
}

// Removes the least recently used entries beyond kMaxEntries, and scratch directories a killed
// weft left behind. Entries another weft removes meanwhile are no error.
void evict(const fs::path& dir) {
  std::error_code ec;
  std::vector<std::pair<fs::file_time_type, fs::path>> entries;
  const auto now = fs::file_time_type::clock::now();
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const fs::path path = e.path();
    if (path.filename() == kPlans) continue;
    if (path.filename().string().starts_with(".")) {
      const auto made = fs::last_write_time(path, ec);
      if (!ec && now - made > std::chrono::hours(1)) fs::remove_all(path, ec);
      continue;
    }
    const auto used = fs::last_write_time(path / kManifest, ec);
    entries.emplace_back(ec ? fs::file_time_type::min() : used, path);
  }
  if (entries.size() <= BuildCache::kMaxEntries) return;
  std::sort(entries.begin(), entries.end());
  const std::size_t extra = entries.size() - BuildCache::kMaxEntries;
  for (std::size_t i = 0; i < extra; ++i) fs::remove_all(entries[i].second, ec);
}

}  // namespace

std::string file_stamp(const fs::path& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return "absent";
  return std::to_string(st.st_size) + ":" + std::to_string(st.st_mtim.tv_sec) + "." +
         std::to_string(st.st_mtim.tv_nsec);
}

std::optional<BuildCache> BuildCache::open() {
  // Beside weft-lib's cache of libraries (tools/weft-lib), named alike.
  if (const char* dir = ::getenv("WEFT_BUILD_CACHE"); dir && *dir) return BuildCache(dir);
  if (const char* xdg = ::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    return BuildCache(fs::path(xdg) / "weft" / "builds");
  if (const char* home = ::getenv("HOME"); home && *home)
    return BuildCache(fs::path(home) / ".cache" / "weft" / "builds");
  return std::nullopt;
}

std::optional<KeptBuild> BuildCache::find(const BuildDescription& description) const {
  const fs::path entry = entry_dir(dir_, description);
  const auto manifest = read_whole_file(entry / kManifest);
  if (!manifest) return std::nullopt;
  const std::string head = description.text + kFilesHeader;
  if (manifest->compare(0, head.size(), head) != 0) return std::nullopt;
  // The rest: "program NAME", then one "<hash> <size> <path>" line per file the build read.
  std::istringstream rest(manifest->substr(head.size()));
  std::string line, program;
  if (!std::getline(rest, line) || !line.starts_with("program ")) return std::nullopt;
  program = line.substr(8);
  while (std::getline(rest, line)) {
    const auto first = line.find(' ');
    const auto second = first == std::string::npos ? first : line.find(' ', first + 1);
    if (second == std::string::npos) return std::nullopt;
    if (file_fingerprint(line.substr(second + 1)) != line.substr(0, second)) return std::nullopt;
  }
  KeptBuild kept{entry / program, read_whole_file(entry / kDiagnostics).value_or("")};
  std::error_code ec;
  if (!fs::is_regular_file(kept.program, ec)) return std::nullopt;
  fs::last_write_time(entry / kManifest, fs::file_time_type::clock::now(), ec);  // recently used
  return kept;
}

std::optional<std::string> BuildCache::keep(const BuildDescription& description,
                                            const std::vector<std::string>& files,
                                            const fs::path& program,
                                            const std::string& diagnostics) const {
  std::error_code ec;
  fs::create_directories(dir_, ec);
  if (ec) return "cannot create " + dir_.string() + ": " + ec.message();
  std::string pattern = (dir_ / ".new-XXXXXX").string();
  if (!::mkdtemp(pattern.data()))
    return "cannot write in " + dir_.string() + ": " + std::strerror(errno);
  const fs::path scratch = pattern;
  std::string manifest =
      description.text + kFilesHeader + "program " + program.filename().string() + "\n";
  for (const auto& file : files) {
    const auto fingerprint = file_fingerprint(file);
    if (!fingerprint || file.find('\n') != std::string::npos) {
      fs::remove_all(scratch, ec);
      return std::nullopt;  // a file that cannot be read again: the build cannot be checked later
    }
    manifest += *fingerprint + " " + fs::absolute(file, ec).string() + "\n";
  }
  fs::copy_file(program, scratch / program.filename(), ec);
  if (ec || !write_whole(scratch / kDiagnostics, diagnostics) ||
      !write_whole(scratch / kManifest, manifest)) {
    fs::remove_all(scratch, ec);
    return "cannot write in " + dir_.string();
  }
  // Its time orders entries by use; the file system's own clock is too coarse to.
  fs::last_write_time(scratch / kManifest, fs::file_time_type::clock::now(), ec);
  // Into place in one step, so that a weft looking for it meanwhile sees all or nothing; a stale
  // entry of the same description goes first.
  const fs::path entry = entry_dir(dir_, description);
  fs::rename(scratch, entry, ec);
  if (ec) {
    fs::remove_all(entry, ec);
    fs::rename(scratch, entry, ec);
    if (ec) fs::remove_all(scratch, ec);  // another weft kept the same build just now
  }
  evict(dir_);
  return std::nullopt;
}

std::optional<std::string> BuildCache::find_plan(const BuildDescription& key) const {
  const fs::path file = dir_ / kPlans / name_of(key);
  const auto text = read_whole_file(file);
  const std::string head = key.text + kPlanHeader;
  if (!text || text->compare(0, head.size(), head) != 0) return std::nullopt;
  std::error_code ec;
  fs::last_write_time(file, fs::file_time_type::clock::now(), ec);  // recently used
  return text->substr(head.size());
}

void BuildCache::keep_plan(const BuildDescription& key, const std::string& plan) const {
  std::error_code ec;
  const fs::path plans = dir_ / kPlans;
  fs::create_directories(plans, ec);
  std::string scratch = (plans / ".new-XXXXXX").string();
  const int fd = ::mkstemp(scratch.data());
  if (fd < 0) return;
  ::close(fd);
  // Into place in one step: a weft reading the plan meanwhile sees all of it or none.
  if (write_whole(scratch, key.text + kPlanHeader + plan)) {
    // Its time orders plans by use; the file system's own clock is too coarse to.
    fs::last_write_time(scratch, fs::file_time_type::clock::now(), ec);
    fs::rename(scratch, plans / name_of(key), ec);
  }
  fs::remove(scratch, ec);
  evict_plans(plans);
}

std::optional<std::string> uncacheable_flags(const std::vector<std::string>& flags) {
  // Libraries the system keeps; any other is found on a search path weft does not follow.
  static const std::vector<std::string> system_libraries = {"-lm",  "-lpthread", "-ldl",
                                                            "-lrt", "-latomic",  "-lstdc++"};
  for (const auto& f : flags) {
    if (f.starts_with("-l") &&
        std::find(system_libraries.begin(), system_libraries.end(), f) == system_libraries.end())
      return f + " links a library found on the search path";
    if (f.starts_with("-L")) return f + " sets the library search path";
    if (f.starts_with("-Wl,") || f == "-Xlinker") return f + " passes options to the linker";
    if (f.starts_with("@")) return f + " is a response file";
    if (f.starts_with("-M")) return f + " asks for a dependency file";
    if (f == "-o") return "-o names the program's file";
  }
  return std::nullopt;
}

std::vector<std::string> files_named_in_flags(const std::vector<std::string>& flags) {
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& f : flags) {
    std::string candidate = f;
    if (f.starts_with("-")) {
      const auto equals = f.find('=');
      if (equals == std::string::npos) continue;
      candidate = f.substr(equals + 1);
    }
    if (!candidate.empty() && fs::is_regular_file(candidate, ec)) files.push_back(candidate);
  }
  return files;
}

std::vector<std::string> dependency_file_prerequisites(const std::string& text) {
  std::vector<std::string> out;
  std::string word;
  bool after_colon = false;
  auto finish = [&] {
    if (after_colon && !word.empty()) out.push_back(word);
    word.clear();
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\\' && i + 1 < text.size() && (text[i + 1] == '\n' || text[i + 1] == '\r')) {
      finish();
      ++i;
      if (text[i] == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
    } else if (c == '\\' && i + 1 < text.size() && (text[i + 1] == ' ' || text[i + 1] == '#')) {
      word += text[++i];
    } else if (c == ':' && !after_colon &&
               (i + 1 == text.size() || text[i + 1] == ' ' || text[i + 1] == '\n' ||
                text[i + 1] == '\\')) {
      word.clear();  // the target
      after_colon = true;
    } else if (c == ' ' || c == '\t') {
      finish();
    } else if (c == '\n') {
      finish();
      after_colon = false;  // a further rule (-MP's phony targets) lists nothing new
    } else if (c == '$' && i + 1 < text.size() && text[i + 1] == '$') {
      word += '$';
      ++i;
    } else {
      word += c;
    }
  }
  finish();
  return out;
}

}  // namespace weft::driver
