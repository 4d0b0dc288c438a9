import math


class Account:
    def __init__(self, owner, balance=0):
        self.owner = owner
        self.balance = balance

    def deposit(self, amount):
        if amount <= 0:
            raise ValueError("positive only")
        self.balance += amount
        return self.balance

    def interest(self, rate):
        return math.floor(self.balance * rate)


def report(accounts):
    total = sum(a.balance for a in accounts)
    names = ", ".join(a.owner for a in accounts)
    return names + ": " + str(total)


def main():
    accounts = [Account("ann", 10), Account("bob")]
    accounts[1].deposit(5)
    print(report(accounts))
    print(accounts[0].interest(0.5))
    accounts[0].deposit(-1)


main()
