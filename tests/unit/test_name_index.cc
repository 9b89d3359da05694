// NameIndex: tensor names to indices, as the metadata's input and output lookups use it.
#include <gtest/gtest.h>

#include <string>

#include "base/name_index.h"

using aotrt::NameIndex;

TEST(NameIndex, FindsWhatWasInsertedInAnyOrder) {
  NameIndex index;
  const char* names[] = {"weight", "a", "input_0", "b", "Z", ""};
  for (size_t i = 0; i < 6; ++i) EXPECT_EQ(index.Insert(names[i], i), nullptr) << names[i];
  EXPECT_EQ(index.size(), 6u);
  for (size_t i = 0; i < 6; ++i) {
    const size_t* found = index.Find(names[i]);
    ASSERT_NE(found, nullptr) << names[i];
    EXPECT_EQ(*found, i);
  }
  EXPECT_EQ(index.Find("input"), nullptr);  // a prefix is not a match
  EXPECT_EQ(index.Find("input_00"), nullptr);
  EXPECT_EQ(index.Find("c"), nullptr);
}

TEST(NameIndex, ASecondInsertKeepsTheFirstAndReportsIt) {
  NameIndex index;
  EXPECT_EQ(index.Insert("x", 3), nullptr);
  const size_t* first = index.Insert("x", 7);
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(*first, 3u);
  EXPECT_EQ(*index.Find("x"), 3u);
  EXPECT_EQ(index.size(), 1u);
}
