#include "weft/driver/debug_info.hpp"

#include <llvm/BinaryFormat/Dwarf.h>
#include <llvm/DebugInfo/DWARF/DWARFCompileUnit.h>
#include <llvm/DebugInfo/DWARF/DWARFContext.h>
#include <llvm/DebugInfo/DWARF/DWARFDie.h>
#include <llvm/DebugInfo/DWARF/DWARFFormValue.h>
#include <llvm/Object/ObjectFile.h>
#include <llvm/Support/LEB128.h>

#include <algorithm>
#include <string_view>
#include <vector>

namespace weft::driver {
namespace {

using llvm::DWARFDie;
namespace dw = llvm::dwarf;

constexpr int kMaxDepth = 16;  // of types within types, against malformed (cyclic) information

// Typedefs and qualifiers say nothing about layout.
DWARFDie strip(DWARFDie type) {
  for (int i = 0; type && i < kMaxDepth; ++i) {
    switch (type.getTag()) {
      case dw::DW_TAG_typedef:
      case dw::DW_TAG_const_type:
      case dw::DW_TAG_volatile_type:
      case dw::DW_TAG_restrict_type:
      case dw::DW_TAG_atomic_type:
        type = type.getAttributeValueAsReferencedDie(dw::DW_AT_type);
        break;
      default:
        return type;
    }
  }
  return type;
}

std::vector<std::uint64_t> array_counts(DWARFDie array) {
  std::vector<std::uint64_t> counts;
  for (DWARFDie sub : array.children()) {
    if (sub.getTag() != dw::DW_TAG_subrange_type) continue;
    if (auto c = dw::toUnsigned(sub.find(dw::DW_AT_count)))
      counts.push_back(*c);
    else if (auto u = dw::toUnsigned(sub.find(dw::DW_AT_upper_bound)))
      counts.push_back(*u + 1);
    else
      counts.push_back(0);  // flexible array member, or unknown
  }
  return counts;
}

std::uint64_t type_size(DWARFDie type, int depth = 0) {
  type = strip(type);
  if (!type || depth > kMaxDepth) return 0;
  if (auto s = dw::toUnsigned(type.find(dw::DW_AT_byte_size))) return *s;
  if (type.getTag() == dw::DW_TAG_array_type) {
    std::uint64_t n = type_size(type.getAttributeValueAsReferencedDie(dw::DW_AT_type), depth + 1);
    for (std::uint64_t c : array_counts(type)) n *= c;
    return n;
  }
  if (type.getTag() == dw::DW_TAG_pointer_type || type.getTag() == dw::DW_TAG_reference_type)
    return 8;
  return 0;
}

// A type the C or C++ library declares (pthread_mutex_t, std::atomic<int>): its insides are
// not the program's, so a report names the object, not "__data.__lock".
bool is_library_type(DWARFDie type) {
  for (int i = 0; type && i < kMaxDepth; ++i) {
    const std::string file =
        type.getDeclFile(llvm::DILineInfoSpecifier::FileLineInfoKind::AbsoluteFilePath);
    if (file.starts_with("/usr/include") || file.starts_with("/usr/lib")) return true;
    const auto tag = type.getTag();
    if (tag != dw::DW_TAG_typedef && tag != dw::DW_TAG_const_type &&
        tag != dw::DW_TAG_volatile_type && tag != dw::DW_TAG_restrict_type &&
        tag != dw::DW_TAG_atomic_type)
      return false;
    type = type.getAttributeValueAsReferencedDie(dw::DW_AT_type);
  }
  return false;
}

// Appends the path to byte `offset` of an object of `type`: "[3]", ".head", "[1].next[2]".
void append_path(DWARFDie type, std::uint64_t offset, std::string& out, int depth = 0) {
  if (!type || depth > kMaxDepth) return;
  if (is_library_type(type)) {
    if (offset) out.append("+").append(std::to_string(offset));
    return;
  }
  type = strip(type);
  if (!type) return;
  switch (type.getTag()) {
    case dw::DW_TAG_array_type: {
      const DWARFDie element = type.getAttributeValueAsReferencedDie(dw::DW_AT_type);
      const std::uint64_t element_size = type_size(element);
      if (!element_size) return;
      std::vector<std::uint64_t> counts = array_counts(type);
      if (counts.empty()) counts.push_back(0);
      // Row-major: the stride of a dimension is the product of the later ones.
      std::vector<std::uint64_t> stride(counts.size(), element_size);
      for (std::size_t d = counts.size(); d-- > 1;) stride[d - 1] = stride[d] * counts[d];
      for (std::size_t d = 0; d < counts.size(); ++d) {
        if (!stride[d]) return;
        out.append("[").append(std::to_string(offset / stride[d])).append("]");
        offset %= stride[d];
      }
      append_path(element, offset, out, depth + 1);
      return;
    }
    case dw::DW_TAG_structure_type:
    case dw::DW_TAG_class_type:
    case dw::DW_TAG_union_type:
      for (DWARFDie member : type.children()) {
        if (member.getTag() != dw::DW_TAG_member) continue;
        const std::uint64_t at =
            dw::toUnsigned(member.find(dw::DW_AT_data_member_location)).getValueOr(0);
        const DWARFDie member_type = member.getAttributeValueAsReferencedDie(dw::DW_AT_type);
        const std::uint64_t size = type_size(member_type);
        if (offset < at || offset >= at + std::max<std::uint64_t>(size, 1)) continue;
        const char* name = member.getName(llvm::DINameKind::ShortName);
        out += std::string(".") + (name ? name : "<anonymous>");
        append_path(member_type, offset - at, out, depth + 1);
        return;
      }
      if (offset) out.append("+").append(std::to_string(offset));  // padding
      return;
    default:
      if (offset) out.append("+").append(std::to_string(offset));  // inside a scalar
      return;
  }
}

// The address a variable's location consists of, if it does: DW_OP_addr, or DWARF 5's
// DW_OP_addrx (an index into the unit's address table; clang 14's default).
std::optional<std::uint64_t> static_address(DWARFDie variable) {
  auto location = variable.find(dw::DW_AT_location);
  if (!location) return std::nullopt;
  auto block = location->getAsBlock();
  if (!block || block->empty()) return std::nullopt;
  if ((*block)[0] == dw::DW_OP_addr && block->size() == 9) {
    std::uint64_t a = 0;
    for (int i = 8; i >= 1; --i) a = (a << 8) | (*block)[i];
    return a;
  }
  if ((*block)[0] == dw::DW_OP_addrx || (*block)[0] == dw::DW_OP_GNU_addr_index) {
    unsigned length = 0;
    const std::uint64_t index =
        llvm::decodeULEB128(block->data() + 1, &length, block->data() + block->size());
    if (1 + length != block->size()) return std::nullopt;
    if (auto a =
            variable.getDwarfUnit()->getAddrOffsetSectionItem(static_cast<std::uint32_t>(index)))
      return a->Address;
  }
  return std::nullopt;
}

// The frame-base offset of a variable located at DW_OP_fbreg N.
std::optional<std::int64_t> frame_offset(DWARFDie variable) {
  auto location = variable.find(dw::DW_AT_location);
  if (!location) return std::nullopt;
  auto block = location->getAsBlock();
  if (!block || block->size() < 2 || (*block)[0] != dw::DW_OP_fbreg) return std::nullopt;
  unsigned length = 0;
  const std::int64_t n =
      llvm::decodeSLEB128(block->data() + 1, &length, block->data() + block->size());
  if (1 + length != block->size()) return std::nullopt;  // more than a plain fbreg
  return n;
}

std::string qualified_name(DWARFDie die) {
  const char* name = die.getName(llvm::DINameKind::ShortName);
  std::string s = name ? name : "";
  for (DWARFDie p = die.getParent(); p; p = p.getParent())
    if (p.getTag() == dw::DW_TAG_namespace || p.getTag() == dw::DW_TAG_structure_type ||
        p.getTag() == dw::DW_TAG_class_type) {
      const char* n = p.getName(llvm::DINameKind::ShortName);
      s = std::string(n ? n : "(anonymous namespace)") + "::" + s;
    }
  return s;
}

void collect_frame_variables(DWARFDie die, std::vector<DWARFDie>& out, int depth = 0) {
  if (depth > kMaxDepth) return;
  for (DWARFDie child : die.children()) {
    const auto tag = child.getTag();
    if (tag == dw::DW_TAG_variable || tag == dw::DW_TAG_formal_parameter)
      out.push_back(child);
    else if (tag == dw::DW_TAG_lexical_block || tag == dw::DW_TAG_inlined_subroutine)
      collect_frame_variables(child, out, depth + 1);
  }
}

}  // namespace

struct DebugInfo::Impl {
  struct Global {
    std::uint64_t start, size;
    DWARFDie die;
  };
  llvm::object::OwningBinary<llvm::object::ObjectFile> binary;
  std::unique_ptr<llvm::DWARFContext> context;
  std::vector<Global> globals;  // by start
  bool globals_read = false;

  void read_globals() {
    globals_read = true;
    if (!context) return;
    for (const auto& unit : context->compile_units()) {
      // The runtime's units (src/CMakeLists.txt), read by their first entry only.
      const char* source = dw::toString(unit->getUnitDIE(true).find(dw::DW_AT_name), "");
      if (std::string_view(source).starts_with(WEFT_RUNTIME_DEBUG_PREFIX)) continue;
      for (const llvm::DWARFDebugInfoEntry& entry : unit->dies()) {
        DWARFDie die(unit.get(), &entry);
        if (die.getTag() != dw::DW_TAG_variable) continue;
        auto at = static_address(die);
        if (!at) continue;
        // A definition of a declaration (DW_AT_specification) has the type on the declaration.
        DWARFDie described = die;
        if (auto spec = die.getAttributeValueAsReferencedDie(dw::DW_AT_specification))
          described = spec;
        const std::uint64_t size =
            type_size(described.getAttributeValueAsReferencedDie(dw::DW_AT_type));
        globals.push_back({*at, std::max<std::uint64_t>(size, 1), described});
      }
    }
    std::sort(globals.begin(), globals.end(),
              [](const Global& a, const Global& b) { return a.start < b.start; });
  }
};

DebugInfo::DebugInfo(const std::string& program) : impl_(std::make_unique<Impl>()) {
  auto binary = llvm::object::ObjectFile::createObjectFile(program);
  if (!binary) {
    llvm::consumeError(binary.takeError());
    return;
  }
  impl_->binary = std::move(*binary);
  impl_->context = llvm::DWARFContext::create(*impl_->binary.getBinary());
}

DebugInfo::~DebugInfo() = default;

std::optional<std::string> DebugInfo::global(std::uint64_t address) {
  if (!impl_->globals_read) impl_->read_globals();
  const auto& g = impl_->globals;
  auto it = std::upper_bound(g.begin(), g.end(), address,
                             [](std::uint64_t a, const Impl::Global& x) { return a < x.start; });
  if (it == g.begin()) return std::nullopt;
  --it;
  if (address >= it->start + it->size) return std::nullopt;
  std::string name = qualified_name(it->die);
  if (name.empty()) return std::nullopt;
  append_path(it->die.getAttributeValueAsReferencedDie(dw::DW_AT_type), address - it->start, name);
  return name;
}

std::optional<DebugInfo::Scalar> DebugInfo::scalar(const std::string& name, std::string* why) {
  if (!impl_->globals_read) impl_->read_globals();
  for (const Impl::Global& g : impl_->globals) {
    if (qualified_name(g.die) != name) continue;
    const DWARFDie type = strip(g.die.getAttributeValueAsReferencedDie(dw::DW_AT_type));
    const auto tag = type ? type.getTag() : dw::Tag(0);
    const std::uint64_t size = type_size(type);
    bool is_signed = false;
    if (tag == dw::DW_TAG_base_type) {
      const auto encoding = dw::toUnsigned(type.find(dw::DW_AT_encoding)).getValueOr(0);
      if (encoding == dw::DW_ATE_float) {
        if (why) *why = "'" + name + "' is a floating-point variable";
        return std::nullopt;
      }
      is_signed = encoding == dw::DW_ATE_signed || encoding == dw::DW_ATE_signed_char;
    } else if (tag == dw::DW_TAG_enumeration_type) {
      is_signed = true;
    } else if (tag != dw::DW_TAG_pointer_type) {
      if (why) *why = "'" + name + "' is not a scalar (an array, a structure...)";
      return std::nullopt;
    }
    if (size != 1 && size != 2 && size != 4 && size != 8) {
      if (why) *why = "'" + name + "' has a size of " + std::to_string(size) + " bytes";
      return std::nullopt;
    }
    Scalar out{g.start, static_cast<std::uint32_t>(size), is_signed, 0};
    // Its bytes in the file, unless its section has none there (.bss: zero).
    for (const llvm::object::SectionRef& section : impl_->binary.getBinary()->sections()) {
      if (g.start < section.getAddress() ||
          g.start + size > section.getAddress() + section.getSize())
        continue;
      if (section.isBSS()) break;
      auto contents = section.getContents();
      if (!contents) {
        llvm::consumeError(contents.takeError());
        break;
      }
      const std::uint64_t at = g.start - section.getAddress();
      if (at + size > contents->size()) break;
      for (std::uint64_t b = 0; b < size; ++b)
        out.initial |= std::uint64_t{static_cast<unsigned char>((*contents)[at + b])} << (8 * b);
      break;
    }
    return out;
  }
  if (why) *why = "'" + name + "' is not a global variable of the program";
  return std::nullopt;
}

std::optional<std::string> DebugInfo::local(std::uint64_t pc, std::uint64_t frame,
                                            std::uint64_t address, std::string* function) {
  if (!impl_->context) return std::nullopt;
  const auto found = impl_->context->getDIEsForAddress(pc);
  if (!found || !found.FunctionDIE) return std::nullopt;
  DWARFDie subprogram = found.FunctionDIE;
  // Only a frame base in %rbp (DW_OP_reg6) is known here: weft-cc keeps frame pointers.
  auto base = subprogram.find(dw::DW_AT_frame_base);
  auto base_block = base ? base->getAsBlock() : llvm::None;
  if (!base_block || base_block->size() != 1 || (*base_block)[0] != dw::DW_OP_reg6)
    return std::nullopt;
  std::vector<DWARFDie> variables;
  collect_frame_variables(subprogram, variables);
  for (DWARFDie v : variables) {
    auto offset = frame_offset(v);
    if (!offset) continue;
    const std::uint64_t start = frame + static_cast<std::uint64_t>(*offset);
    const DWARFDie type = v.getAttributeValueAsReferencedDie(dw::DW_AT_type);
    const std::uint64_t size = std::max<std::uint64_t>(type_size(type), 1);
    if (address < start || address >= start + size) continue;
    const char* name = v.getName(llvm::DINameKind::ShortName);
    if (!name) continue;
    std::string s = name;
    append_path(type, address - start, s);
    if (function) {
      const char* f = subprogram.getName(llvm::DINameKind::ShortName);
      *function = f ? f : "";
    }
    return s;
  }
  return std::nullopt;
}

}  // namespace weft::driver
