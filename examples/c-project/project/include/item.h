#ifndef ITEM_H
#define ITEM_H
struct item {
    char name[32];
    int count;
    double price;
};
double item_value(const struct item *it);
#endif
