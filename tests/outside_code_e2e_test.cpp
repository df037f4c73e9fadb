// What weft did not compile must never become a false verdict: glibc's own record of threads,
// the C++ runtime's static guards, signals sent to the process, and atomics weaker than
// sequential consistency (tests/native/ fixtures through the weft command line;
// docs/process-state.md). Channels through the kernel: channels_e2e_test.cpp.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "native_cli.hpp"

namespace weft::test {
namespace {

std::string verdict_line(const std::string& out) {
  const std::size_t at = out.find("weft: ");
  return at == std::string::npos ? "" : out.substr(at, out.find('\n', at) - at);
}

// glibc clears __libc_single_threaded in pthread_create; weft's threads do too, and each
// execution starts with it set again (the fixture asserts both).
TEST(OutsideCode, GlibcLearnsThatTheProcessHasThreads) {
  const CliRun r = check("libc_single_threaded.c");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.result["complete"], true) << r.out;
}

// libstdc++ makes shared_ptr counts atomic only once glibc says there are threads: before, each
// copy into a thread was a data race on the control block.
TEST(OutsideCode, ASharedPtrCopiedIntoThreadsIsNoRace) {
  const CliRun r = check("shared_ptr_across_threads.cpp");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.result["complete"], true);
  EXPECT_EQ(r.result["memory_model"], "rc11");
  // Under sc, its counts' acquire loads inside the library's header are named, as not the
  // program's atomics.
  const CliRun sc = check("shared_ptr_across_threads.cpp", "--memory-model=sc");
  ASSERT_EQ(sc.exit_code, 0) << sc.out << sc.err;
  EXPECT_FALSE(sc.result.contains("weak_atomics")) << sc.out;
  ASSERT_TRUE(sc.result.contains("weak_atomics_in_libraries")) << sc.out;
  EXPECT_EQ(sc.result["memory_model"], "sequential-consistency");
}

// std::stop_callback skips its completion semaphore in a single-threaded process: a correct
// jthread + stop_token + condition_variable_any program was reported as a deadlock. And
// stop_token's lock loops (a try function that pauses and yields, in noexcept functions whose
// calls have terminate landing pads) are busy-waits: before, over 20,000 executions, some to
// --max-steps; now explored completely.
TEST(OutsideCode, AJthreadStoppedThroughItsTokenIsNoDeadlock) {
  const CliRun r = check("jthread_stop_token.cpp");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.result["complete"], true) << r.out;
  EXPECT_EQ(r.result["statistics"]["bound_reached"], 0) << r.out;
}

// A function-local static: the second thread waits for the first to construct it (before, the
// library's guard was invisible and its publication a data race).
TEST(OutsideCode, AFunctionLocalStaticIsConstructedOnceWithoutARace) {
  const CliRun r = check("function_local_static.cpp");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.result["complete"], true);
  EXPECT_FALSE(r.result.contains("weak_atomics")) << r.out;  // the guard's test is not one
}

// lbzip2's pattern: kill(getpid()) from a worker wakes main's sigsuspend and runs the handler
// there. Without the signal, main waits for ever: a deadlock, since it then joins nobody.
TEST(OutsideCode, AProcessDirectedSignalWakesSigsuspend) {
  const CliRun ok = check("signal_wakes_sigsuspend.c");
  EXPECT_EQ(ok.exit_code, 0) << ok.out << ok.err;
  EXPECT_EQ(ok.result["complete"], true) << ok.out;
  EXPECT_GE(ok.result["statistics"]["traces"].get<int>(), 2) << ok.out;  // both orders
  const CliRun lost = check("signal_wakes_sigsuspend.c", "-- -DNO_SIGNAL");
  ASSERT_EQ(lost.exit_code, 1) << lost.out << lost.err;
  EXPECT_EQ(first_bug_kind(lost), "deadlock");
}

// POSIX lets any thread that does not block a process-directed signal take it (Linux prefers
// main): main, asleep, may run the handler instead of the sender. Before, the sender always
// did, and the assertion that it does was called explored. Each thread has its own mask: with
// main blocking it after starting the worker, only the sender takes it.
TEST(OutsideCode, WhichThreadTakesAProcessDirectedSignalIsExplored) {
  const CliRun any = check("signal_taken_by_any_thread.c");
  ASSERT_EQ(any.exit_code, 1) << any.out << any.err;
  EXPECT_EQ(first_bug_kind(any), "assertion failure");
  EXPECT_NE(any.out.find("look for a signal to take"), std::string::npos) << any.out;
  const CliRun blocked = check("signal_taken_by_any_thread.c", "-- -DMAIN_BLOCKS");
  EXPECT_EQ(blocked.exit_code, 0) << blocked.out << blocked.err;
  EXPECT_EQ(blocked.result["complete"], true) << blocked.out;
}

// A signal taken by a sleeping thread interrupts its sleep: nanosleep fails with EINTR.
TEST(OutsideCode, ASignalInterruptsASleep) {
  const CliRun r = check("signal_interrupts_sleep.c");
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(first_bug_message(r).find("slept == 0"), std::string::npos) << r.out;
}

// Without a handler of the program's, sleeps are independent: one execution. With one, each is
// a look for signals, and their orders are explored.
TEST(OutsideCode, SleepsAreLooksForSignalsOnlyOnceTheProgramHasAHandler) {
  const CliRun plain = check("sleeps_and_handlers.c");
  EXPECT_EQ(plain.exit_code, 0) << plain.out << plain.err;
  EXPECT_EQ(stat(plain, "executions"), 1u) << plain.out;
  const CliRun handled = check("sleeps_and_handlers.c", "-- -DHANDLER");
  EXPECT_EQ(handled.exit_code, 0) << handled.out << handled.err;
  EXPECT_GT(stat(handled, "executions"), 1u) << handled.out;
}

// Only main may take the signal, and it waits in sem_wait, which the kernel would interrupt to
// run the handler (which posts the semaphore): not modelled, so the run stops saying so rather
// than calling it a deadlock.
TEST(OutsideCode, ASignalOnlyABlockedThreadCouldTakeIsNotADeadlock) {
  const CliRun r = check("signal_during_sem_wait.c");
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.out.find("the program sent SIGUSR1 at signal_during_sem_wait.c:23 while thread 0 "
                       "waited in a call that the signal would interrupt"),
            std::string::npos)
      << r.out;
}

// A process blocked in a system call weft does not model is stopped at the execution time-out,
// whose message names the call rather than suggesting a loop.
TEST(OutsideCode, TheExecutionTimeOutNamesTheSystemCallTheProcessIsBlockedIn) {
  const CliRun r = check("blocks_in_msgrcv.c", "--execution-timeout 1");
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_NE(r.out.find("blocked in the system call msgrcv"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("a loop with no scheduling point"), std::string::npos) << r.out;
}

// Peterson's lock with release stores and acquire loads is broken on x86; under sc weft explores
// sequential consistency only, and says so, naming the places. With seq_cst, nothing to say.
TEST(OutsideCode, AVerdictOnWeakAtomicsStatesTheMemoryModel) {
  const CliRun weak = weft_cli("check " + fixture("peterson_orders.c") +
                               " -q --memory-model=sc -- -DRELEASE_ACQUIRE");
  ASSERT_EQ(weak.exit_code, 0) << weak.out << weak.err;
  EXPECT_NE(
      verdict_line(weak.out).find("every behaviour under sequential consistency was explored"),
      std::string::npos)
      << weak.out;
  EXPECT_NE(weak.out.find("the program uses atomics weaker than seq_cst (at peterson_orders.c:"),
            std::string::npos)
      << weak.out;
  const CliRun weak_json = check("peterson_orders.c", "--memory-model=sc -- -DRELEASE_ACQUIRE");
  ASSERT_TRUE(weak_json.result.contains("weak_atomics")) << weak_json.out;
  EXPECT_EQ(weak_json.result["memory_model"], "sequential-consistency");
  // Without --memory-model, a strategy that does not explore the C/C++ model explores sc, and
  // the note names the strategies that do.
  const CliRun portfolio = weft_cli("check " + fixture("peterson_orders.c") +
                                    " -q --time-limit 60 -- -DRELEASE_ACQUIRE");
  ASSERT_EQ(portfolio.exit_code, 0) << portfolio.out << portfolio.err;
  EXPECT_NE(portfolio.out.find("as sequentially consistent (--strategy portfolio explores "
                               "sequential consistency only; the C/C++ model, which weft "
                               "explores by default, needs one of "),
            std::string::npos)
      << portfolio.out;

  const CliRun strong = weft_cli("check " + fixture("peterson_orders.c") + " -q");
  ASSERT_EQ(strong.exit_code, 0) << strong.out << strong.err;
  EXPECT_NE(verdict_line(strong.out).find("no bug found; every behaviour under RC11 was explored"),
            std::string::npos)
      << strong.out;
  EXPECT_EQ(strong.out.find("weaker than seq_cst"), std::string::npos) << strong.out;
  const CliRun strong_sc =
      weft_cli("check " + fixture("peterson_orders.c") + " -q --memory-model=sc");
  EXPECT_NE(verdict_line(strong_sc.out).find("no bug found; every behaviour was explored"),
            std::string::npos)
      << strong_sc.out;
}

// --stop-on matches a race by the variable it names (the raw message holds an address mark).
TEST(OutsideCode, StopOnMatchesARaceByItsVariable) {
  const CliRun r = check("racy_counter.c", "--stop-on counter");
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_EQ(r.result["incomplete_code"], "stopped-at-chosen-bug") << r.out;
  ASSERT_FALSE(r.result["bugs"].empty());
  EXPECT_EQ(first_bug_kind(r), "data race") << r.out;
  EXPECT_NE(r.result["bugs"][0]["message"].get<std::string>().find("data race on counter"),
            std::string::npos)
      << r.out;
}

// Under an address-space limit the runtime's reservations fail: one clear error up front, not a
// false "invalid free" of an ordinary block.
TEST(OutsideCode, AnAddressSpaceLimitIsOneClearError) {
  const CliRun r = shell("ulimit -v 268435456 && " + std::string(WEFT_BIN) + " check " +
                         fixture("heap_per_thread.c") + " -q");
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("the address space is limited"), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("invalid free"), std::string::npos) << r.out;
}

// --all-bugs: a race is one report per pair of instructions, with the times it happened again,
// so that weft's memory does not grow with the memory a loop races over.
TEST(OutsideCode, RacesAreGroupedByTheirPairOfInstructions) {
  const CliRun r = check("racy_array.c", "--all-bugs --no-race-points");
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  ASSERT_EQ(r.result["bugs"].size(), 1u) << r.out;  // before: one per cell and order
  EXPECT_EQ(r.result["bugs"][0]["kind"], "data race");
  EXPECT_GE(r.result["bugs"][0]["repeats"].get<int>(), 2) << r.out;
}

// weft's own memory limit ends the run with its verdict so far, not the kernel's OOM killer.
TEST(OutsideCode, WeftsOwnMemoryLimitEndsTheRunWithAVerdict) {
  const CliRun r = check("locked_counter.c", "--weft-memory-limit 1");
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_NE(r.result["incomplete_because"].get<std::string>().find(
                "weft's own memory reached --weft-memory-limit (1 MiB)"),
            std::string::npos)
      << r.out;
}

// GLib's GMutex locks with GLib's own atomics inside libglib: weft models the program's calls
// to it (no false race on the counter it guards), but GLib's calls to itself stay unseen, so the
// verdict names the library instead of calling the program explored, and a race found without
// the lock is marked as one that synchronisation inside the library may order.
TEST(OutsideCode, ALibraryThatSynchronisesUnseenIsNamedInTheVerdict) {
  const std::string glib = "-- $(pkg-config --cflags --libs glib-2.0)";
  const CliRun locked = check("glib_counter.c", glib);
  EXPECT_EQ(locked.exit_code, 3) << locked.out << locked.err;
  EXPECT_GE(locked.result["statistics"]["traces"].get<int>(), 2) << locked.out;  // both orders
  EXPECT_EQ(locked.result["incomplete_code"], "unseen-library") << locked.out;
  ASSERT_TRUE(locked.result.contains("unseen_libraries")) << locked.out;
  EXPECT_EQ(locked.result["unseen_libraries"][0].get<std::string>().rfind("libglib-2.0.so", 0), 0u)
      << locked.out;
  EXPECT_TRUE(locked.result["bugs"].empty()) << locked.out;

  const CliRun racy = check("glib_counter.c", glib + " -DNO_LOCK");
  ASSERT_EQ(racy.exit_code, 1) << racy.out << racy.err;
  EXPECT_EQ(first_bug_kind(racy), "data race");
  EXPECT_EQ(racy.result["bugs"][0]["may_be_false"], true) << racy.out;
}

// Abseil's absl::Mutex locks with its own atomics inside libabsl_synchronization: weft models it
// (abseil_sync.cpp), so the guarded counter is explored completely with no race, the unguarded
// one races, and a lost update between two critical sections is found (natively, it shows only
// now and then). Before, the guarded counter raced falsely and the lost update was missed.
TEST(OutsideCode, AnAbslMutexGuardsWhatItLocks) {
  const std::string absl = "-- $(pkg-config --libs absl_synchronization)";
  const CliRun locked = check("absl_counter.cpp", absl);
  EXPECT_EQ(locked.exit_code, 0) << locked.out << locked.err;
  EXPECT_EQ(locked.result["complete"], true) << locked.out;
  EXPECT_FALSE(locked.result.contains("unseen_libraries")) << locked.out;
  EXPECT_GE(locked.result["statistics"]["traces"].get<int>(), 2) << locked.out;  // both orders

  const CliRun racy = check("absl_counter.cpp", absl + " -DNO_LOCK");
  ASSERT_EQ(racy.exit_code, 1) << racy.out << racy.err;
  EXPECT_EQ(first_bug_kind(racy), "data race");
  EXPECT_FALSE(racy.result["bugs"][0].contains("may_be_false")) << racy.out;

  const CliRun lost = check("absl_counter.cpp", absl + " -DLOST_UPDATE");
  ASSERT_EQ(lost.exit_code, 1) << lost.out << lost.err;
  EXPECT_EQ(first_bug_kind(lost), "assertion failure") << lost.out;
}

// A step in code weft did not compile names the program's line that called into it, then the
// library and its function: std::thread's constructor creates the thread inside libstdc++
// (before: "? (_end)").
TEST(OutsideCode, AStepInALibraryNamesTheProgramsCallAndTheLibrary) {
  const CliRun r =
      check("absl_counter.cpp", "-- -DNO_LOCK $(pkg-config --libs absl_synchronization)");
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  const auto& create = r.result["bugs"][0]["interleaving"][0];
  EXPECT_EQ(create["operation"], "create thread 0.0") << r.out;
  EXPECT_EQ(create["function"], "main") << r.out;
  EXPECT_EQ(create["line"], 30) << r.out;  // std::thread other(bump);
  EXPECT_EQ(create["library"].get<std::string>().rfind("libstdc++.so.6", 0), 0u) << r.out;
  EXPECT_EQ(create["library_function"], "std::thread::_M_start_thread") << r.out;
  const std::string text = r.result["bugs"][0]["report"].get<std::string>();
  EXPECT_NE(text.find("absl_counter.cpp:30 (main), in libstdc++.so.6"), std::string::npos) << text;
  // weft replay names it too, from the mappings the replayed program reports after its HELLO.
  const CliRun replay = weft_cli("replay --json " + replay_file("absl_counter.cpp"));
  const auto& replayed = replay.result["bug"]["interleaving"][0];
  EXPECT_EQ(replayed["library_function"], "std::thread::_M_start_thread") << replay.out;
  EXPECT_EQ(replayed["library"].get<std::string>().rfind("libstdc++.so.6", 0), 0u) << replay.out;
}

// Conditions (LockWhen), CondVar, Notification, BlockingCounter, Barrier and call_once each hand
// data between threads: every interleaving is explored, with no race and no deadlock.
TEST(OutsideCode, AbseilsHandOffsAreExploredWithoutFalseBugs) {
  const CliRun r = check("absl_handoffs.cpp", "-- $(pkg-config --libs absl_synchronization)");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.result["complete"], true) << r.out;
  EXPECT_FALSE(r.result.contains("unseen_libraries")) << r.out;
  EXPECT_GT(r.result["statistics"]["traces"].get<int>(), 100) << r.out;
}

// A program that uses no such library is not affected: the C and C++ runtime libraries'
// synchronisation is modelled at their interfaces.
TEST(OutsideCode, TheCAndCxxRuntimeLibrariesAreNotNamed) {
  const CliRun r = check("shared_ptr_across_threads.cpp");
  EXPECT_FALSE(r.result.contains("unseen_libraries")) << r.out;
}

// With a time limit and executions that take 20 ms, the estimate's walks take a bounded share
// of the time (before: its 32 first walks came first, whatever they cost), and the verdict says
// what the search covered.
TEST(OutsideCode, TheEstimatesWalksTakeABoundedShareOfATimeLimit) {
  const CliRun r = check("slow_executions.c", "--time-limit 3 --strategy optimal");
  ASSERT_EQ(r.exit_code, 3) << r.out << r.err;
  const auto& stats = r.result["statistics"];
  const auto walks = stats["estimate"]["walks"].get<std::uint64_t>();
  const auto executions = stats["executions"].get<std::uint64_t>();
  EXPECT_GE(walks, 1u) << r.out;
  EXPECT_GE(executions, 3 * walks) << r.out;  // at most about a quarter of the time: walks
  EXPECT_NE(r.result["incomplete_because"].get<std::string>().find("the search ran"),
            std::string::npos)
      << r.out;
}

// A run ends at its time limit even when an execution is still running: executions of 20 s and
// a limit of 2 s end in moments (a generous bound: before, the run waited for the execution,
// 20 s). The execution stopped is not counted, and the verdict says it was stopped.
TEST(OutsideCode, ARunEndsAtItsTimeLimitWhateverItsExecutionsTake) {
  const auto start = std::chrono::steady_clock::now();
  const CliRun r = check("slow_executions.c", "--time-limit 2 -- -DCOMPUTE_MS=20000");
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_LT(seconds, 12.0) << r.out;  // compiling included
  EXPECT_EQ(r.result["statistics"]["executions"], 0) << r.out;
  EXPECT_EQ(r.result["statistics"]["timeouts"], 0) << r.out;
  EXPECT_NE(r.result["incomplete_because"].get<std::string>().find(
                "an execution still running at the time limit was stopped"),
            std::string::npos)
      << r.out;
}

// Busy-waits through calls: a lock loop around a try function that yields and updates the
// caller's expected value through a pointer, and loops around a failing try_push and an empty
// try_pop. Before, the lock loop ran to --max-steps in 27 of 1,564 executions.
TEST(OutsideCode, BusyWaitsThroughCallsAreStoppedNotRunToTheBound) {
  const CliRun r = check("busy_waits_through_calls.c", "--max-steps 200");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.result["statistics"]["bound_reached"], 0) << r.out;
  EXPECT_GT(r.result["statistics"]["spin_blocked"].get<int>(), 0) << r.out;
}

// Loops around a failing try_push and an empty try_pop that reach their ring through a pointer
// read plainly each iteration, and whose callee keeps an atomic's value in a local whose address
// it takes (Boost.Lockfree's spsc_queue is built so). Before: 10,789 of 20,000 executions at the
// bound; now 20 executions, explored.
TEST(OutsideCode, LockFreeQueueLoopsThroughPointersAreBusyWaits) {
  for (const char* level : {"-O0", "-O2"}) {
    const CliRun r = check("ring_through_pointers.c",
                           std::string("--max-steps 200 --max-executions 5000 -- ") + level);
    ASSERT_EQ(r.exit_code, 0) << level << r.out << r.err;
    EXPECT_EQ(r.result["complete"], true) << level << r.out;
    EXPECT_EQ(r.result["statistics"]["bound_reached"], 0) << level << r.out;
    EXPECT_GT(r.result["statistics"]["spin_blocked"].get<int>(), 0) << level << r.out;
  }
}

// The same optimised: the lock loop carries its expected value in a register (a phi of the
// loop's header), and at -O2 the loops lose their preheaders. Before, -O1 ran 1,274,403
// executions, 90,227 of them to the bound, and -O2 ended incomplete; now 36 executions each.
TEST(OutsideCode, OptimisedBusyWaitsAreStoppedToo) {
  for (const char* level : {"-O1", "-O2"}) {
    const CliRun r = check("busy_waits_through_calls.c",
                           std::string("--max-steps 200 --max-executions 5000 -- ") + level);
    ASSERT_EQ(r.exit_code, 0) << level << r.out << r.err;
    EXPECT_EQ(r.result["statistics"]["bound_reached"], 0) << level << r.out;
    EXPECT_GT(r.result["statistics"]["spin_blocked"].get<int>(), 0) << level << r.out;
  }
}

// Libraries and objects given after `--` follow the program's source on the link line.
TEST(OutsideCode, ALibraryAfterDashDashIsLinkedAfterTheProgram) {
  const auto dir = std::filesystem::temp_directory_path() / "weft-e2e-linked-helper";
  std::filesystem::create_directories(dir);
  const std::string object = (dir / "linked_helper.o").string();
  const std::string library = (dir / "libhelper.a").string();
  ASSERT_EQ(std::system((std::string(WEFT_CC) + " -c " + fixture("linked_helper.c") + " -o " +
                         object + " && ar rcs " + library + " " + object)
                            .c_str()),
            0);
  const CliRun r = check("uses_linked_helper.c", "-- " + library);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
}

// A library that locks with its own atomics, built by a plain compiler: weft names it and marks
// the race it reports as one the library may order. weft-lib builds it with weft-cc into the
// library cache, which weft puts first on the program's library path: the lock is then seen,
// and the program is explored with no race. --no-library-cache goes back to the plain build.
TEST(OutsideCode, TheLibraryCacheHoldsInstrumentedBuildsThatWeftPrefers) {
  const auto dir = std::filesystem::temp_directory_path() / "weft-e2e-library-cache";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir / "plain");
  std::filesystem::copy(fixture("spin_library"), dir / "plain",
                        std::filesystem::copy_options::recursive);
  ASSERT_EQ(std::system(("make -s -C " + (dir / "plain").string() + " CC=cc").c_str()), 0);
  const std::string cache = (dir / "cache").string();
  const std::string link =
      " -- -L" + (dir / "plain").string() + " -lspinlock -Wl,-rpath," + (dir / "plain").string();
  const auto weft = [&](const std::string& options) {
    return shell("WEFT_LIBRARY_CACHE=" + cache + " " + WEFT_BIN + " check " +
                 fixture("uses_spin_library.c") + " --json -q --replay-file " +
                 (dir / "replay.json").string() + " " + options + link);
  };

  const CliRun plain = weft("");
  ASSERT_EQ(plain.exit_code, 1) << plain.out << plain.err;
  EXPECT_EQ(first_bug_kind(plain), "data race");
  EXPECT_EQ(plain.result["bugs"][0]["may_be_false"], true) << plain.out;
  EXPECT_EQ(plain.result["unseen_libraries"][0], "libspinlock.so") << plain.out;

  const CliRun built = shell("WEFT_LIBRARY_CACHE=" + cache + " " + WEFT_LIB + " build --source " +
                             fixture("spin_library"));
  ASSERT_EQ(built.exit_code, 0) << built.out << built.err;
  EXPECT_NE(built.err.find("1 libraries of spin_library in "), std::string::npos) << built.err;
  EXPECT_TRUE(std::filesystem::exists(dir / "cache" / "lib" / "libspinlock.so"));

  const CliRun seen = weft("");
  EXPECT_EQ(seen.exit_code, 0) << seen.out << seen.err;
  EXPECT_EQ(seen.result["complete"], true) << seen.out;
  EXPECT_FALSE(seen.result.contains("unseen_libraries")) << seen.out;
  ASSERT_TRUE(seen.result.contains("instrumented_libraries")) << seen.out;
  EXPECT_EQ(seen.result["instrumented_libraries"][0], "libspinlock.so") << seen.out;

  const CliRun without = weft("--no-library-cache");
  EXPECT_EQ(without.exit_code, 1) << without.out << without.err;

  const CliRun listed = shell("WEFT_LIBRARY_CACHE=" + cache + " " + WEFT_LIB + " list");
  EXPECT_EQ(listed.out, "libspinlock.so\n") << listed.err;
  const CliRun wrong = shell(std::string(WEFT_LIB) + " build --source /nonexistent");
  EXPECT_EQ(wrong.exit_code, 2);
  EXPECT_EQ(wrong.err.rfind("weft-lib: error: ", 0), 0u) << wrong.err;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace weft::test
