B=/work/main/build-ci/src
g++ -std=c++20 -O1 -g -I /work/main/include $1 -o ${1%.cpp} -Wl,--start-group $B/libweft*.a -Wl,--end-group -lz3 -lpthread
