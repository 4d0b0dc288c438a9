package main

import (
	"fmt"
	"strings"
)

type Celsius = float64

type Reading struct {
	Place string
	Temp  Celsius
}

func average(rs []Reading) Celsius {
	var sum Celsius
	for _, r := range rs {
		sum += r.Temp
	}
	return sum / Celsius(len(rs))
}

func places(rs []Reading) string {
	names := make([]string, 0, len(rs))
	for _, r := range rs {
		names = append(names, r.Place)
	}
	return strings.Join(names, ",")
}

func main() {
	rs := []Reading{{"oslo", 3.5}, {"rome", 18}}
	var count int = places(rs)
	fmt.Println(average(rs), count)
}
