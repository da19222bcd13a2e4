// SPDX-License-Identifier: BSD-3-Clause
// What a Go program sees of its CPUs (its system calls go around libc and
// the preload); tests/integration/supervise_go.sh runs it under
// cpuset-run's supervisor.
//
//	counts      NumCPU GOMAXPROCS and the raw sched_getaffinity list
//	files       cpuinfo's processors, /proc/stat's cpuN lines, status's
//	            Cpus_allowed_list, /sys/devices/system/cpu/online
//	bind V      this OS thread bound to virtual V (raw): "ok PID TID LIST",
//	            then waits for a line on stdin
//	threads N   N goroutines on OS threads of their own print their list
//	exec MODE   runs itself with MODE through os/exec: the child's output
package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"unsafe"
)

func rawList() string {
	var m [128]uint64
	_, _, e := syscall.RawSyscall(syscall.SYS_SCHED_GETAFFINITY, 0, uintptr(len(m)*8), uintptr(unsafe.Pointer(&m[0])))
	if e != 0 {
		return "error:" + e.Error()
	}
	var l []string
	for i := 0; i < len(m)*64; i++ {
		if m[i/64]&(1<<(uint(i)%64)) != 0 {
			l = append(l, strconv.Itoa(i))
		}
	}
	return strings.Join(l, ",")
}

func countLines(path, prefix string, digit bool) int {
	b, err := os.ReadFile(path)
	if err != nil {
		return -1
	}
	n := 0
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, prefix) && (!digit || (len(l) > len(prefix) && l[len(prefix)] >= '0' && l[len(prefix)] <= '9')) {
			n++
		}
	}
	return n
}

func field(path, prefix string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "?"
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, prefix) {
			return strings.TrimSpace(l[len(prefix):])
		}
	}
	return "?"
}

func main() {
	if len(os.Args) < 2 {
		os.Exit(2)
	}
	switch os.Args[1] {
	case "counts":
		fmt.Println(runtime.NumCPU(), runtime.GOMAXPROCS(0), rawList())
	case "files":
		fmt.Println(countLines("/proc/cpuinfo", "processor", false), countLines("/proc/stat", "cpu", true),
			field("/proc/self/status", "Cpus_allowed_list:"), field("/sys/devices/system/cpu/online", ""))
	case "bind":
		runtime.LockOSThread()
		v, _ := strconv.Atoi(os.Args[2])
		var m [16]uint64
		m[v/64] |= 1 << (uint(v) % 64)
		_, _, e := syscall.RawSyscall(syscall.SYS_SCHED_SETAFFINITY, 0, uintptr(len(m)*8), uintptr(unsafe.Pointer(&m[0])))
		st := "ok"
		if e != 0 {
			st = e.Error()
		}
		fmt.Println(st, os.Getpid(), syscall.Gettid(), rawList())
		bufio.NewReader(os.Stdin).ReadString('\n')
	case "threads":
		n, _ := strconv.Atoi(os.Args[2])
		var wg sync.WaitGroup
		var mu sync.Mutex
		seen := map[string]bool{}
		for i := 0; i < n; i++ {
			wg.Add(1)
			go func() {
				runtime.LockOSThread()
				l := rawList()
				mu.Lock()
				seen[l] = true
				mu.Unlock()
				wg.Done()
			}()
		}
		wg.Wait()
		var keys []string
		for k := range seen {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		fmt.Println(strings.Join(keys, " "))
	case "exec":
		out, err := exec.Command(os.Args[0], os.Args[2:]...).Output()
		if err != nil {
			fmt.Println("error:", err)
		}
		fmt.Print(string(out))
	default:
		os.Exit(2)
	}
}
