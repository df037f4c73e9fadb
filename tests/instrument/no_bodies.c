// A module with data and declarations but no function bodies is left untouched: no hook
// declarations, no marker. Checked at -O0; see CMakeLists.txt.
extern int elsewhere;
int increment(int);
int* alias_of_elsewhere = &elsewhere;
int (*hook)(int) = increment;

// CHECK: @alias_of_elsewhere = {{.*}}global i32* @elsewhere
// CHECK-NOT: __weft
// CHECK-NOT: !weft.instrumented
