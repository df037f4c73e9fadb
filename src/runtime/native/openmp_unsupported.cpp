// The OpenMP entry points weft knows but does not model: tasks, cancellation, teams, doacross
// loops, threadprivate copies made by the runtime. Defining them stops a program that uses
// them with one clear line, instead of reaching LLVM's OpenMP runtime (which weft-cc does not
// link) or failing with an undefined symbol.
#include "openmp.hpp"

#define WEFT_OPENMP_NOT_MODELLED(name)                  \
  extern "C" [[noreturn]] void name(...) {              \
    weft::runtime::native::openmp::EntryScope scope;    \
    weft::runtime::native::openmp::not_modelled(#name); \
  }

// Explicit tasks, task groups, task loops and their reductions.
WEFT_OPENMP_NOT_MODELLED(__kmpc_omp_task_alloc)
WEFT_OPENMP_NOT_MODELLED(__kmpc_omp_target_task_alloc)
WEFT_OPENMP_NOT_MODELLED(__kmpc_omp_task)
WEFT_OPENMP_NOT_MODELLED(__kmpc_omp_task_with_deps)
WEFT_OPENMP_NOT_MODELLED(__kmpc_omp_task_begin_if0)
WEFT_OPENMP_NOT_MODELLED(__kmpc_omp_task_complete_if0)
WEFT_OPENMP_NOT_MODELLED(__kmpc_omp_wait_deps)
WEFT_OPENMP_NOT_MODELLED(__kmpc_omp_taskwait)
WEFT_OPENMP_NOT_MODELLED(__kmpc_omp_taskyield)
WEFT_OPENMP_NOT_MODELLED(__kmpc_taskgroup)
WEFT_OPENMP_NOT_MODELLED(__kmpc_end_taskgroup)
WEFT_OPENMP_NOT_MODELLED(__kmpc_taskloop)
WEFT_OPENMP_NOT_MODELLED(__kmpc_taskloop_5)
WEFT_OPENMP_NOT_MODELLED(__kmpc_task_reduction_init)
WEFT_OPENMP_NOT_MODELLED(__kmpc_taskred_init)
WEFT_OPENMP_NOT_MODELLED(__kmpc_task_reduction_modifier_init)
WEFT_OPENMP_NOT_MODELLED(__kmpc_taskred_modifier_init)
WEFT_OPENMP_NOT_MODELLED(__kmpc_task_reduction_get_th_data)
// Cancellation.
WEFT_OPENMP_NOT_MODELLED(__kmpc_cancel)
WEFT_OPENMP_NOT_MODELLED(__kmpc_cancellationpoint)
WEFT_OPENMP_NOT_MODELLED(__kmpc_cancel_barrier)
// Teams and distribute.
WEFT_OPENMP_NOT_MODELLED(__kmpc_fork_teams)
WEFT_OPENMP_NOT_MODELLED(__kmpc_push_num_teams)
WEFT_OPENMP_NOT_MODELLED(__kmpc_dist_for_static_init_4)
WEFT_OPENMP_NOT_MODELLED(__kmpc_dist_for_static_init_4u)
WEFT_OPENMP_NOT_MODELLED(__kmpc_dist_for_static_init_8)
WEFT_OPENMP_NOT_MODELLED(__kmpc_dist_for_static_init_8u)
WEFT_OPENMP_NOT_MODELLED(__kmpc_dist_dispatch_init_4)
WEFT_OPENMP_NOT_MODELLED(__kmpc_dist_dispatch_init_8)
// Doacross loops (ordered(n) with depend clauses).
WEFT_OPENMP_NOT_MODELLED(__kmpc_doacross_init)
WEFT_OPENMP_NOT_MODELLED(__kmpc_doacross_wait)
WEFT_OPENMP_NOT_MODELLED(__kmpc_doacross_post)
WEFT_OPENMP_NOT_MODELLED(__kmpc_doacross_fini)
// threadprivate variables the runtime copies (clang uses thread-local storage instead, unless
// told -fno-openmp-use-tls).
WEFT_OPENMP_NOT_MODELLED(__kmpc_threadprivate_cached)
WEFT_OPENMP_NOT_MODELLED(__kmpc_threadprivate_register)
