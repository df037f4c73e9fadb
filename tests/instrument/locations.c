// Every hook call carries the source location of what it instruments: the runtime names an event's
// source line by the hook's return address. Checked at -O0 and -O1 with the prefix LOC; see
// CMakeLists.txt. Each call's location is captured and then matched against its metadata.

int counter;
_Atomic int flag;

void bump(void) {
  counter++;
  // LOC-DAG: call void @__weft_read({{.*}}@counter{{.*}}), !dbg ![[INCREMENT:[0-9]+]]
  // LOC-DAG: call void @__weft_write({{.*}}@counter{{.*}}), !dbg ![[INCREMENT]]
  // LOC-DAG: ![[INCREMENT]] = !DILocation(line: [[# @LINE - 3]], column: 10,
}

int poll(void) {
  return flag;
  // LOC-DAG: call void @__weft_atomic({{.*}}@flag{{.*}}), !dbg ![[ATOMIC:[0-9]+]]
  // LOC-DAG: ![[ATOMIC]] = !DILocation(line: [[# @LINE - 2]], column: 10,
}

// The region's begin has the location of the function's first instruction, its end that of the
// return.
void __VERIFIER_atomic_set(int value) {
  // LOC-DAG: call void @__weft_atomic_begin(){{.*}}, !dbg ![[BEGIN:[0-9]+]]
  // LOC-DAG: ![[BEGIN]] = !DILocation(line: [[# @LINE + 1]], column: 13,
  counter = value;
  // LOC-DAG: call void @__weft_atomic_end(){{.*}}, !dbg ![[END:[0-9]+]]
  // LOC-DAG: ![[END]] = !DILocation(line: [[# @LINE + 1]], column: 1,
}

void reach_error(void) {
  // LOC-DAG: call void @__weft_reach_error(){{.*}}, !dbg ![[REACH:[0-9]+]]
  // LOC-DAG: ![[REACH]] = !DILocation(line: [[# @LINE + 1]], column: 3,
  bump();
}
