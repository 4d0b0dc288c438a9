#include <vector>
#include <map>
#include <string>
#include <algorithm>

template <typename T>
class Box {
public:
    explicit Box(T v) : value_(v) {}
    T get() const { return value_; }
    void set(T v) { value_ = v; }
private:
    T value_;
};

namespace util {
int twice(int x) { return 2 * x; }
int square(int x) { return x * x; }
std::string greet(const std::string& who) { return "hello " + who; }
}

class Shape {
public:
    virtual ~Shape() {}
    virtual double area() const = 0;
};

class Square : public Shape {
public:
    explicit Square(double s) : side_(s) {}
    double area() const override { return side_ * side_; }
private:
    double side_;
};

int total(const std::vector<int>& xs) {
    int sum = 0;
    for (int x : xs) sum += util::twice(x);
    std::map<std::string, int> counts;
    counts[util::greet("a")] = sum;
    return sum + (int)counts.size();
}

int main() {
    std::vector<int> v = {3, 1, 2};
    std::sort(v.begin(), v.end());
    Box<int> b(util::square(4));
    Square sq(2.0);
    int r = total(v) + b.get();
    return r + (int)sq.area() + undeclared_thing;
}
