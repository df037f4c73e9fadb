// No threads, no operations: one execution of it measures the fork server's fixed cost.
int main(void) { return 0; }
