package sample

func InTest() {}
