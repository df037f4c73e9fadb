// An array allocated with new[] and freed with delete.
#include <thread>

struct Sample {
  int values[4];
};

int main() {
  Sample* samples = new Sample[3];
  std::thread worker([samples] { samples[1].values[0] = 7; });
  worker.join();
  delete samples;
  return 0;
}
