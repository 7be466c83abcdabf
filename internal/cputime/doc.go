// Package cputime reads the CPU time and peak memory of this process from
// getrusage, the one place the project does.
package cputime
