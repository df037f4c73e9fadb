// The axiomatic oracle of the memory models: every execution graph of a small atomic program
// (each read's write, each location's coherence order) is built, and the ones the model's axioms
// call consistent give the program's outcomes. It shares nothing with weft's exploration, which
// runs the program under an operational semantics, so the two check each other.
//
// The axioms, per model:
//  - sc: acyclic(po ∪ rf ∪ co ∪ fr) (Lamport; Shasha and Snir's formulation).
//  - tso: herd7's x86tso.cat (Alglave, Maranget, Tautschnig 2014): uniproc
//    acyclic(po-loc ∪ rf ∪ co ∪ fr), atomicity of locked instructions, and
//    acyclic(ppo ∪ mfence ∪ implied ∪ rfe ∪ co ∪ fr), where ppo is po without store-to-load
//    pairs, a seq_cst store is a store and an mfence, a seq_cst fence an mfence, and every
//    read-modify-write a locked instruction.
//  - rc11: Lahav, Vafeiadis, Kang, Hur and Dreyer, "Repairing sequential consistency in C/C++11"
//    (PLDI 2017), Fig. 1 and §3: coherence (hb;eco? irreflexive), atomicity, SC (psc acyclic,
//    psc = psc_base ∪ psc_F) and no-thin-air (po ∪ rf acyclic); release sequences as that paper
//    defines them (the same thread's later stores to the location continue one).
// A read-modify-write is one event that reads and writes; it must read from the store that
// immediately precedes it in coherence order (atomicity, in every model).
#pragma once

#include "atomic_program.hpp"
#include "random_program.hpp"

namespace weft::testing {

enum class AxiomaticModel { kSc, kTso, kRc11 };

/// How many candidate graphs allowed_outcomes() builds for `p`: the product of each read's
/// possible writes and each location's coherence orders.
double candidate_graphs(const AtomicProgram& p);

/// The outcomes `model` allows for `p`, in run_atomic_program's form: the final value of every
/// location then every value each thread read, for each consistent graph where no assertion
/// fails; and the message of every assertion that fails in a consistent graph, the failing
/// thread's later events left out (as an execution stops at the failure).
Observed allowed_outcomes(const AtomicProgram& p, AxiomaticModel model);

/// How many of `p`'s graphs (each read's write, each location's coherence order) `model`'s
/// axioms call consistent, the assertions aside.
std::uint64_t consistent_graphs(const AtomicProgram& p, AxiomaticModel model);

}  // namespace weft::testing
