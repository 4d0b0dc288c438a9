#include <string>
#include <vector>

namespace geometry {
template <typename T>
struct Point {
    T x, y;
    T dot(const Point &o) const { return x * o.x + y * o.y; }
};

using PointI = Point<int>;

class Polygon {
public:
    explicit Polygon(std::vector<PointI> pts) : pts_(std::move(pts)) {}
    int area2() const {
        int s = 0;
        for (size_t i = 0; i + 1 < pts_.size(); ++i) s += pts_[i].x * pts_[i + 1].y - pts_[i + 1].x * pts_[i].y;
        return s;
    }
    std::string name() const { return "polygon"; }
private:
    std::vector<PointI> pts_;
};
}

int main() {
    geometry::Polygon p({{0, 0}, {4, 0}, {4, 3}});
    geometry::PointI a{1, 2}, b{3, 4};
    int unused_total = a.dot(b);
    const char *label = p.name();
    return p.area2() > 0 ? 0 : unused_total;
}
