// A bank with a real concurrency bug, for weft's quick start. Two tellers move money between
// accounts. Each transfer checks the balance under the lock, releases it, and debits in a second
// critical section: no data race, but in one interleaving both tellers see enough money and
// the account is overdrawn.
//
//   ./build/bin/weft check examples/bank_transfer.c
#include <assert.h>
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t bank = PTHREAD_MUTEX_INITIALIZER;
static int checking = 100;
static int savings = 0;

static int balance_of_checking(void) {
  pthread_mutex_lock(&bank);
  int balance = checking;
  pthread_mutex_unlock(&bank);
  return balance;
}

static void* teller(void* arg) {
  int amount = *(int*)arg;
  if (balance_of_checking() >= amount) {  // the bug: the check and the debit are not atomic
    pthread_mutex_lock(&bank);
    checking -= amount;
    savings += amount;
    pthread_mutex_unlock(&bank);
  }
  return 0;
}

int main(void) {
  int amount = 70;
  pthread_t first, second;
  pthread_create(&first, 0, teller, &amount);
  pthread_create(&second, 0, teller, &amount);
  pthread_join(first, 0);
  pthread_join(second, 0);
  printf("checking %d, savings %d\n", checking, savings);
  assert(checking >= 0);
  return 0;
}
