# GReduce's motivating example, as a generator lopper can reduce (docs/generators.md):
# a list of passwords, each with a few more random fields, all from Python's `random`.
#   lopper generate -o out.txt ./validate.sh -- python3 passwords.py 7
import random
import sys

random.seed(int(sys.argv[1]))
n = random.randint(1, 10)
for _ in range(n):
    length = random.randint(8, 16)
    pw = ''.join(random.choice('abcdefghij0123456789') for _ in range(length))
    if random.random() < 0.3:
        pw = pw + random.choice(['!', '?', '#'])
    xs = list(range(4))
    random.shuffle(xs)
    print(pw, random.sample(range(10), 2), random.choices('xyz', k=2), xs, random.getrandbits(3), round(random.uniform(1, 2), 3))
